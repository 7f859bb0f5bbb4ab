"""A blocking ``Client`` shared across ``os.fork()``: a child never touches the parent's
connection, and nobody gets an answer meant for someone else.

One ``Client`` is made in the parent; while threads of the parent keep calling on it,
children are forked (``os.fork()`` directly, as gunicorn ``--preload`` or a prefork
pool does) and call on their copy of it with payloads no one else sends. A child
reports through its exit status (and a line on a pipe, to explain a failure): 0 every
answer was its own, 1 some answer was not (misrouted), 2 a call raised, 3 it hung
(killed by its own alarm). The whole thing is repeated ``DUALIO_FORK_RUNS`` times
(default 100).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from dualio_sync import Client, UsageError
from tests.conftest import ServerProcess, start_server

# These tests fork a process that has threads (the loop thread, readers, pools) on purpose:
# that dualio survives it is what they check. Python 3.12 and newer warn of it at every fork.
FORKS_WITH_THREADS = pytest.mark.filterwarnings(
    r"ignore:This process \(pid=\d+\) is multi-threaded, use of fork\(\) may lead to deadlocks"
    ":DeprecationWarning"
)
pytestmark = [pytest.mark.timeout(120), FORKS_WITH_THREADS]

RUNS = int(os.environ.get("DUALIO_FORK_RUNS", "100"))
CHILDREN = 4
CHILD_CALLS = 25
PARENT_THREADS = 2
CHILD_DEADLINE = 20.0  # a child that has not exited by then is killed and counted as hung

OK, MISROUTED, RAISED, HUNG = 0, 1, 2, 3


@pytest.fixture
def fork_server() -> Iterator[ServerProcess]:
    """A server of this module's own, so its connection counters are this module's."""
    server = start_server()
    yield server
    assert server.stop() == 0


@dataclass
class Child:
    pid: int
    report: int  # the read end of its pipe
    status: int | None = None
    said: str = ""


def fork_child(body: Callable[[], tuple[int, str]]) -> Child:
    """Fork; the child runs ``body`` (its exit status and a line saying why) and exits,
    never returning into pytest."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        status, said = RAISED, "the child failed before its body ran"
        try:
            os.close(read_end)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)  # not pytest-timeout's handler
            signal.alarm(int(CHILD_DEADLINE))
            status, said = body()
        except BaseException as exc:
            status, said = RAISED, f"{type(exc).__name__}: {exc}"
        finally:
            try:
                os.write(write_end, said.encode()[:4000])
            finally:
                os._exit(status)
    os.close(write_end)
    return Child(pid, read_end)


def reap(children: list[Child]) -> None:
    """Wait for every child (killing one that hangs) and read what it said."""
    deadline = time.monotonic() + CHILD_DEADLINE + 5
    for child in children:
        while child.status is None:
            pid, status = os.waitpid(child.pid, os.WNOHANG)
            if pid:
                child.status = os.waitstatus_to_exitcode(status)
                if child.status < 0:  # killed by a signal: its alarm, or worse
                    child.status = HUNG
            elif time.monotonic() > deadline:
                os.kill(child.pid, signal.SIGKILL)
            else:
                time.sleep(0.002)
        with os.fdopen(child.report, "rb") as report:
            child.said = report.read().decode(errors="replace")


def calls_own_answers(client: Client, who: str) -> tuple[int, str]:
    """CHILD_CALLS calls with payloads only this process sends: (status, why)."""
    wrong = []
    for i in range(CHILD_CALLS):
        text = f"{who}/{os.getpid()}/{i}"
        if i % 3 == 2:
            answer: object = client.upper(text)
            expected: object = text.upper()
        else:
            answer, expected = client.echo(text.encode()), text.encode()
        if answer != expected:
            wrong.append(f"{expected!r} got {answer!r}")
    client.close()  # the child's own connection; the parent's is untouched either way
    if wrong:
        return MISROUTED, f"{len(wrong)} wrong answers: {wrong[:3]}"
    return OK, f"{CHILD_CALLS} answers, all its own"


@dataclass
class ParentCalls:
    """Threads of the parent calling on the shared client until stopped."""

    client: Client
    stop: threading.Event = field(default_factory=threading.Event)
    done: int = 0
    wrong: list[str] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> ParentCalls:
        self.threads = [threading.Thread(target=self._run, args=(n,)) for n in range(PARENT_THREADS)]
        for thread in self.threads:
            thread.start()
        return self

    def _run(self, n: int) -> None:
        i = 0
        while not self.stop.is_set():
            i += 1
            payload = b"parent/%d/%d" % (n, i)
            try:
                answer = self.client.echo(payload)
            except BaseException as exc:
                self.errors.append(exc)
                return
            if answer != payload:
                self.wrong.append(f"{payload!r} got {answer!r}")
            self.done += 1

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(10)
        assert not any(thread.is_alive() for thread in self.threads), "a parent thread hangs"


def test_children_of_a_forked_client_get_their_own_answers(fork_server: ServerProcess) -> None:
    client = Client(*fork_server.address, timeout=10)
    parent_conn = client._conn
    total_before = client.stats().connections_total
    parent = ParentCalls(client).start()
    children: list[Child] = []
    try:
        for run in range(RUNS):
            batch = [fork_child(lambda n=n, run=run: calls_own_answers(client, f"child{n}/run{run}"))
                     for n in range(CHILDREN)]
            reap(batch)
            children.extend(batch)
    finally:
        parent.finish()
    bad = [(child.status, child.said) for child in children if child.status != OK]
    print(f"\n{RUNS} runs, {len(children)} children, {len(children) - len(bad)} ok, "
          f"{sum(1 for c in children if c.status == MISROUTED)} misrouted; "
          f"parent: {parent.done} calls, {len(parent.wrong)} misrouted")
    assert bad == []
    assert parent.wrong == [] and parent.errors == []
    assert parent.done > 0
    # The parent kept its one connection all along; each child opened exactly one of its own.
    assert client._conn is parent_conn and not client.closed
    assert client.echo(b"after") == b"after"
    assert client.stats().connections_total - total_before == len(children)
    client.close()


def test_a_forked_child_with_retry_none_gets_usage_error(fork_server: ServerProcess) -> None:
    client = Client(*fork_server.address, timeout=10, retry=None)
    parent_conn = client._conn
    assert client.echo(b"before") == b"before"
    total_before = client.stats().connections_total
    parent = ParentCalls(client).start()

    def child() -> tuple[int, str]:
        try:
            client.echo(b"child")
        except UsageError as exc:
            if "fork" not in str(exc):
                return RAISED, f"UsageError that does not say why: {exc}"
            client.close()  # drops the copy of the parent's socket; never says goodbye on it
            return OK, "UsageError"
        return MISROUTED, "the child's call was answered: it used a connection it must not"

    try:
        children = [fork_child(child) for _ in range(CHILDREN)]
        reap(children)
    finally:
        parent.finish()
    assert [(c.status, c.said) for c in children] == [(OK, "UsageError")] * CHILDREN
    assert parent.wrong == [] and parent.errors == [] and parent.done > 0
    assert client._conn is parent_conn and not client.closed
    assert client.echo(b"after") == b"after"
    stats = client.stats()
    assert stats.connections_total == total_before  # no child connected
    client.close()


def test_every_call_of_a_forked_child_with_retry_none_gets_usage_error(fork_server: ServerProcess) -> None:
    """Not only the first: a later call must not open a connection of its own either."""
    client = Client(*fork_server.address, timeout=10, retry=None)
    total_before = client.stats().connections_total

    def child() -> tuple[int, str]:
        outcomes = []
        for i in range(3):
            try:
                client.echo(b"child %d" % i)
                outcomes.append("answered")
            except UsageError:
                outcomes.append("UsageError")
        return (OK if outcomes == ["UsageError"] * 3 else MISROUTED), " ".join(outcomes)

    [forked] = [fork_child(child)]
    reap([forked])
    assert client.echo(b"after") == b"after"
    connections = client.stats().connections_total - total_before
    client.close()
    assert (forked.status, forked.said) == (OK, "UsageError UsageError UsageError")
    assert connections == 0


def test_a_child_forked_while_the_parent_connects_can_connect(fork_server: ServerProcess) -> None:
    client = Client(*fork_server.address, lazy=True, timeout=5, connect_timeout=3)
    fork_server.process.send_signal(signal.SIGSTOP)  # the parent's connect waits for the handshake
    try:
        connecting = threading.Thread(target=client.echo, args=(b"parent",))
        connecting.start()
        time.sleep(0.2)

        def child() -> tuple[int, str]:
            begun = time.monotonic()
            try:
                answer = client.echo(b"child", timeout=2)
            except BaseException as exc:
                return RAISED, f"{type(exc).__name__}: {exc} after {time.monotonic() - begun:.1f}s"
            return (OK, "answered") if answer == b"child" else (MISROUTED, repr(answer))

        forked = fork_child(child)
    finally:
        fork_server.process.send_signal(signal.SIGCONT)  # the server answers both now
    reap([forked])
    connecting.join(10)
    assert client.echo(b"parent") == b"parent"
    client.close()
    assert (forked.status, forked.said) == (OK, "answered")


def test_a_child_forked_while_the_parent_replaces_a_lock_can_connect(fork_server: ServerProcess) -> None:
    """The lock that guards replacing a client's reconnect lock in a child may be held
    by a parent thread at the moment of the fork; the child gets a fresh one."""
    from dualio_transports import forks

    client = Client(*fork_server.address, timeout=10)
    client.echo(b"parent")
    with forks.replacing:
        child = fork_child(lambda: calls_own_answers(client, "child"))
    reap([child])
    client.close()
    assert child.status == OK, child.said
