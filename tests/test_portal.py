"""``Client(transport="portal")``: what is particular to the portal.

What every transport does is stated by the contract suite (tests/contract/), which runs
the portal too. Here: a call from the portal's own loop thread, a closed portal, a fork,
the one loop thread every portal client of a process shares (close joins none), an
interrupted wait, many threads sharing one portal client, and a thousand clients.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterator

import pytest

from dualio_sync import Client, ClosedError, ConnectError, DualioTimeout, UsageError
from dualio_transports.blocking.connection import BlockingConnection
from dualio_transports.dualio_protocol import methods
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.portal import loop_thread
from dualio_transports.portal.connection import PortalConnection
from dualio_transports.portal.loop_thread import LoopThread
from dualio_transports.wire.deadline import deadline
from dualio_transports.wire.request import PING
from tests.conftest import ServerProcess, start_server
from tests.test_fork import (
    FORKS_WITH_THREADS,
    OK,
    RAISED,
    ParentCalls,
    calls_own_answers,
    fork_child,
    reap,
)

pytestmark = [pytest.mark.timeout(60), FORKS_WITH_THREADS]

PROMPT = 1.0  # "promptly": within this many seconds


def portal_of(client: Client) -> PortalConnection:
    conn = client._conn
    assert isinstance(conn, PortalConnection)
    return conn


def portal_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "dualio-portal"}


def on_loop(conn: PortalConnection, fn: Callable[[], object]) -> BaseException | None:
    """Run ``fn`` on the portal's own loop thread (as a callback scheduled there would);
    what it raised."""

    async def run() -> BaseException | None:
        try:
            fn()
        except BaseException as exc:
            return exc
        return None

    return asyncio.run_coroutine_threadsafe(run(), conn.loop).result(5)


def in_flight_drops_to_zero(client: Client, within: float = PROMPT) -> bool:
    """The server has no request in flight within ``within`` (it answers stats at once,
    without counting it in flight)."""
    until = time.monotonic() + within
    while time.monotonic() < until:
        if client.stats().requests_in_flight == 0:
            return True
        time.sleep(0.01)
    return False


# -- the constructor --------------------------------------------------------------------------


@pytest.mark.parametrize(("transport", "error", "words"), [
    ("portals", ValueError, "transport must be one of ('blocking', 'portal'), not 'portals'"),
    ("native", ValueError, "not 'native'"),
    ("", ValueError, "not ''"),
    (None, TypeError, "transport must be a str"),
    (1, TypeError, "not int"),
])
def test_a_bad_transport_is_refused_before_connecting(transport: object, error: type, words: str) -> None:
    with pytest.raises(error) as caught:
        Client("127.0.0.1", 1, transport=transport)  # type: ignore[arg-type]  # port 1: nothing listens
    assert words in str(caught.value)


def test_the_transport_is_an_attribute(server: ServerProcess) -> None:
    with Client(*server.address, transport="portal") as portal, Client(*server.address) as blocking:
        assert (portal.transport, blocking.transport) == ("portal", "blocking")
        assert isinstance(portal._conn, PortalConnection)
        assert isinstance(blocking._conn, BlockingConnection)


# -- the loop's own thread --------------------------------------------------------------------


def test_a_call_from_the_portals_own_loop_thread_is_a_usage_error(server: ServerProcess) -> None:
    with Client(*server.address, transport="portal", timeout=5) as client, \
            Client(*server.address, transport="portal", timeout=5) as other:
        conn = portal_of(client)
        attempts: dict[str, Callable[[], object]] = {
            "echo": lambda: client.echo(b"x"),
            "ping": client.ping,
            "words": lambda: list(client.words(3)),
            "close": client.close,
            "a new client": lambda: Client(*server.address, transport="portal", timeout=5),
        }
        for name, attempt in attempts.items():
            started = time.monotonic()
            error = on_loop(conn, attempt)
            assert isinstance(error, UsageError), (name, repr(error))
            assert "own event loop thread" in str(error), name
            assert time.monotonic() - started < PROMPT, name  # refused at once, not a deadlock
        assert not client.closed  # the refused close() closed nothing
        assert client.echo(b"from another thread") == b"from another thread"
        assert other.echo(b"the shared loop serves the others") == b"the shared loop serves the others"
    assert client.closed


def test_a_client_stuck_on_an_unread_stream_never_delays_another_clients_calls(
    server: ServerProcess,
) -> None:
    """One loop thread for every client: a stream whose consumer stopped taking items holds
    its own connection (its reading pauses at STREAM_BACKLOG), never the loop."""
    with Client(*server.address, transport="portal", timeout=10) as stuck, \
            Client(*server.address, transport="portal", timeout=10) as other:
        items = stuck.words(200_000)
        next(items)  # the stream runs; nobody takes the rest
        time.sleep(0.3)  # its backlog fills meanwhile
        started = time.monotonic()
        for n in range(50):
            assert other.echo(b"%d" % n) == b"%d" % n
        assert time.monotonic() - started < 2.0  # 50 round trips: milliseconds, not a stall
        items.close()
        assert stuck.echo(b"after") == b"after"


# -- closed -----------------------------------------------------------------------------------


def _after_close(conn: BlockingConnection | PortalConnection) -> list[tuple[type, str]]:
    conn.close()
    conn.close()  # again: harmless
    raised: list[tuple[type, str]] = []
    for attempt in (
        lambda: conn.call(methods.echo(b"x", 0.0), deadline(1.0)),
        lambda: conn.call(PING, deadline(1.0)),
        lambda: list(conn.stream(methods.words(3, 0.0), deadline(1.0), 1.0)),
    ):
        with pytest.raises(ClosedError) as caught:
            attempt()
        raised.append((type(caught.value), str(caught.value)))
    return raised


def test_after_close_a_portal_raises_what_the_blocking_transport_raises(server: ServerProcess) -> None:
    options = ConnectOptions(*server.address, connect_timeout=5)
    blocking = _after_close(BlockingConnection.connect(options, options.connect_deadline()))
    portal = PortalConnection.connect(options, options.connect_deadline())
    assert _after_close(portal) == blocking
    assert portal.closed and portal.thread.is_alive()  # the shared loop thread serves the others


def test_a_closed_portal_client_raises_closed_error(server: ServerProcess) -> None:
    client = Client(*server.address, transport="portal")
    client.close()
    for attempt in (lambda: client.echo(b"x"), client.ping, lambda: list(client.words(2))):
        with pytest.raises(ClosedError):
            attempt()
    client.close()


# -- threads ----------------------------------------------------------------------------------


def test_every_portal_client_shares_one_loop_thread_and_close_joins_none(server: ServerProcess) -> None:
    before = set(threading.enumerate())
    client = Client(*server.address, transport="portal", timeout=5)
    other = Client(*server.address, transport="portal", timeout=5)
    conn = portal_of(client)
    assert portal_of(other).thread is conn.thread and portal_threads() == {conn.thread}
    assert set(threading.enumerate()) - before <= {conn.thread}
    started = time.monotonic()
    with pytest.raises(DualioTimeout):
        client.sleep(2, timeout=0.2)
    assert 0.19 <= time.monotonic() - started < 0.2 + PROMPT
    # The call was given up on the wire: the server stops sleeping (CANCEL), its late
    # answer is dropped, and the connection goes on.
    assert in_flight_drops_to_zero(client)
    until = time.monotonic() + PROMPT
    while conn.dropped < 1 and time.monotonic() < until:
        time.sleep(0.01)
    assert conn.dropped == 1
    assert client.echo(b"usable") == b"usable"
    started = time.monotonic()
    client.close()
    assert time.monotonic() - started < PROMPT and conn.closed
    assert other.echo(b"the other goes on") == b"the other goes on"  # on the same loop thread
    other.close()
    assert conn.thread.is_alive() and set(threading.enumerate()) - before <= {conn.thread}


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc")
def test_a_portal_client_holds_one_open_file_its_socket(server: ServerProcess) -> None:
    """No thread and no file per client beyond its socket: the loop thread, its selector and
    its wake-up pipe are the process's one."""
    Client(*server.address, transport="portal").close()  # the shared loop is running
    files, threads = open_files(), threading.active_count()
    clients = [Client(*server.address, transport="portal", timeout=5) for _ in range(200)]
    try:
        assert open_files() - files == 200
        assert threading.active_count() == threads
        assert all(client.echo(b"%d" % n) == b"%d" % n for n, client in enumerate(clients))
    finally:
        for client in clients:
            client.close()
    assert open_files() == files


def test_a_failed_connect_leaves_no_thread_but_the_shared_loop() -> None:
    before = set(threading.enumerate())
    with pytest.raises(ConnectError):
        Client("127.0.0.1", 1, transport="portal", connect_timeout=2)  # nothing listens on port 1
    assert set(threading.enumerate()) - before <= portal_threads() and len(portal_threads()) == 1


def test_a_portal_client_dropped_unclosed_is_closed_on_the_loop(server: ServerProcess) -> None:
    client = Client(*server.address, transport="portal")
    conn = portal_of(client)._conn
    gone = weakref.ref(portal_of(client))
    del client
    gc.collect()
    assert gone() is None
    until = time.monotonic() + 5
    while not conn.closed and time.monotonic() < until:
        time.sleep(0.01)
    assert conn.closed


def test_a_thousand_portal_clients_from_a_thousand_threads_share_one_loop_thread(
    server: ServerProcess,
) -> None:
    """Each thread opens a client, calls once and closes it, all at once: no thread or file
    per client beyond its socket (the loop thread is the process's one)."""
    count = 1000
    barrier = threading.Barrier(count)
    answers: list[bytes] = []
    errors: list[BaseException] = []
    peak_portal_threads = 0

    def run(n: int) -> None:
        nonlocal peak_portal_threads
        try:
            barrier.wait(30)
            with Client(*server.address, transport="portal", timeout=30, connect_timeout=30) as client:
                answers.append(client.echo(b"%d" % n))
                peak_portal_threads = max(peak_portal_threads, len(portal_threads()))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    took = time.monotonic() - started
    assert errors == [] and sorted(answers) == sorted(b"%d" % n for n in range(count))
    assert peak_portal_threads == 1 and len(portal_threads()) == 1
    print(f"\n{count} portal clients opened, called and closed from {count} threads in {took:.2f} s")


def test_fifty_threads_sharing_one_portal_client_each_get_their_own_answers(
    server: ServerProcess,
) -> None:
    wrong: list[str] = []
    errors: list[BaseException] = []
    with Client(*server.address, transport="portal", timeout=10) as client:
        barrier = threading.Barrier(50)

        def run(n: int) -> None:
            try:
                barrier.wait(5)
                for i in range(20):
                    text = f"thread {n} call {i} " * (n % 4 + 1)
                    if i % 3 == 0:
                        got: object = client.upper(text, delay=0.001 * (i % 5))
                        expected: object = text.upper()
                    else:
                        got, expected = client.echo(text.encode()), text.encode()
                    if got != expected:
                        wrong.append(f"{expected!r} got {got!r}")
                words = list(client.words(n % 5 + 1))
                if words != [methods.word_at(k) for k in range(n % 5 + 1)]:
                    wrong.append(f"thread {n}: words {words}")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(n,)) for n in range(50)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert not any(thread.is_alive() for thread in threads)
        assert len(portal_threads()) == 1  # fifty callers, one loop thread
    assert errors == [] and wrong == []
    assert len(portal_threads()) == 1  # closing the client leaves the shared loop thread serving


# -- an interrupted wait ------------------------------------------------------------------------


def test_an_interrupted_call_is_given_up_and_the_connection_stays_usable(server: ServerProcess) -> None:
    """Ctrl-C while a call waits: the wait ends with KeyboardInterrupt at once, the call is
    cancelled on the wire (the server stops its work), and the next call works."""
    main = threading.get_ident()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with Client(*server.address, transport="portal", timeout=None) as client:
            conn = portal_of(client)
            timer = threading.Timer(0.2, signal.pthread_kill, (main, signal.SIGINT))
            timer.start()
            started = time.monotonic()
            with pytest.raises(KeyboardInterrupt):
                client.sleep(5)  # no timeout: only the interrupt ends this wait
            timer.join()
            assert time.monotonic() - started < 0.2 + PROMPT
            assert in_flight_drops_to_zero(client)
            assert client.echo(b"after ctrl-c") == b"after ctrl-c"
            assert not client.closed and client._conn is conn
            with Client(*server.address, transport="portal", timeout=5) as other:
                assert other.echo(b"the loop serves") == b"the loop serves"
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_call_waiting_when_its_loop_stops_ends_with_closed_error(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call hands its work to the loop as a callback, with no task the stopping loop
    could cancel: stopping closes the connections living on it, which ends the wait."""
    private = LoopThread("dualio-portal-private")
    monkeypatch.setattr(loop_thread, "shared", lambda: private)
    outcome: list[BaseException | None] = []
    client = Client(*server.address, transport="portal", timeout=None, retry=None)

    def wait_forever() -> None:
        try:
            client.sleep(30)  # no timeout: only the loop's stop ends this wait
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    waiter = threading.Thread(target=wait_forever)
    waiter.start()
    time.sleep(0.2)
    started = time.monotonic()
    assert private.stop()
    waiter.join(PROMPT)
    assert not waiter.is_alive() and time.monotonic() - started < PROMPT
    assert len(outcome) == 1 and isinstance(outcome[0], ClosedError), outcome
    assert not private.thread.is_alive()
    with pytest.raises(ClosedError):
        client.echo(b"after the loop stopped")


def test_every_callback_handed_over_before_a_stop_runs_and_none_after(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Callbacks from many threads join the loop's inbox; the loop runs each once, in the
    order each thread handed them over, also when the stop comes before their wake-up; a
    callback that raises is logged and the others run; after the stop none is taken."""
    portal = LoopThread("dualio-portal-private")
    ran: list[tuple[object, int]] = []
    threads = 8

    def hand_over(thread: int) -> None:
        for n in range(500):
            assert portal.call_soon(ran.append, (thread, n))

    def fail() -> None:
        raise ValueError("a callback that fails")

    workers = [threading.Thread(target=hand_over, args=(t,)) for t in range(threads)]
    assert portal.call_soon(fail)
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert portal.call_soon(ran.append, ("last", 0))
    assert portal.stop()  # right after: the last wake-up may come after the stop's own
    assert not portal.thread.is_alive()
    assert ran[-1] == ("last", 0) and len(ran) == threads * 500 + 1
    for t in range(threads):
        assert [n for thread, n in ran if thread == t] == list(range(500))
    assert "a callback handed to the portal's event loop failed" in caplog.text
    assert portal.call_soon(ran.append, ("after", 0)) is False and portal.submit(asyncio.sleep(0)) is None


def test_a_stream_left_early_is_closed_on_the_loop(server: ServerProcess) -> None:
    with Client(*server.address, transport="portal", timeout=5) as client:
        for index, word in enumerate(client.words(1000, wait=0.01)):
            assert word == methods.word_at(index)
            if index == 2:
                break  # the generator is closed here: its async generator on the loop too
        assert in_flight_drops_to_zero(client)  # the server was told (CANCEL)
        assert client.echo(b"after the stream") == b"after the stream"


# -- fork ---------------------------------------------------------------------------------------


@pytest.fixture
def fork_server_of_our_own() -> Iterator[ServerProcess]:
    """A server of this test's own, so its connection counters are this test's."""
    server = start_server()
    yield server
    assert server.stop() == 0


def test_a_forked_child_gets_its_own_connection_and_the_parent_keeps_its_own(
    fork_server_of_our_own: ServerProcess,
) -> None:
    client = Client(*fork_server_of_our_own.address, transport="portal", timeout=10)
    parent_conn = portal_of(client)
    total_before = client.stats().connections_total
    parent = ParentCalls(client).start()

    def child() -> tuple[int, str]:
        inherited = client._conn
        status, said = calls_own_answers(client, f"child/{os.getpid()}")
        if status != OK:
            return status, said
        if client._conn is inherited:
            return RAISED, "the child called on the parent's connection"
        return OK, said

    try:
        children = [fork_child(child) for _ in range(4)]
        reap(children)
    finally:
        parent.finish()
    assert [(c.status, c.said) for c in children] == [(OK, "25 answers, all its own")] * 4
    assert parent.wrong == [] and parent.errors == [] and parent.done > 0
    assert client._conn is parent_conn and parent_conn.thread.is_alive() and not client.closed
    assert client.echo(b"after") == b"after"
    assert client.stats().connections_total - total_before == 4  # one each, none more
    client.close()


def test_a_forked_child_with_retry_none_gets_usage_error(fork_server_of_our_own: ServerProcess) -> None:
    client = Client(*fork_server_of_our_own.address, transport="portal", timeout=10, retry=None)
    total_before = client.stats().connections_total

    def child() -> tuple[int, str]:
        try:
            client.echo(b"child")
        except UsageError as exc:
            client.close()  # lets go of the copies of the parent's descriptors, nothing else
            return (OK, "UsageError") if "fork" in str(exc) else (RAISED, str(exc))
        return RAISED, "the child's call was answered on a connection it must not use"

    [forked] = [fork_child(child)]
    reap([forked])
    assert (forked.status, forked.said) == (OK, "UsageError")
    assert client.echo(b"parent") == b"parent"
    assert client.stats().connections_total == total_before
    client.close()
