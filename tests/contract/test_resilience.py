"""The contract, on every transport: what a retry policy adds when the server goes away
(see test_calls.py for how the cases run on every transport).

A real server is killed (SIGKILL) mid-call and restarted on the same port, killed
for good, stopped (SIGSTOP: a half-open peer), started only after a lazy client was
made, full (BUSY), or restarted with another token; a scripted peer stands for a
server that never answers the handshake, or answers it slowly (a call's timeout
covers its connect; closing the client while it connects). The last case checks
that the blocking client leaves no thread or fd behind after all that.

The servers here are real ``dualio serve`` processes on a fixed port. Each one is
started from a *warm* Python process (the server's modules already imported, its
command line read from stdin), so a restart takes milliseconds instead of the
~0.4 s of a cold interpreter start, the time from "the server is back" is sharp,
and the module stays short; the next warm process is made while a case runs.
"""

from __future__ import annotations

import functools
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import anyio
import anyio.to_thread
import pytest

from dualio import (
    AuthenticationError,
    CallFinished,
    CallStarted,
    ClosedError,
    ConnectError,
    ConnectionLost,
    ConnectionState,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    OutcomeUnknown,
    RetriesExhausted,
    RetryPolicy,
    StreamInterrupted,
)
from dualio.lab.common.fault_proxy import FaultProxy, Toxic
from dualio_sync import Client
from dualio_transports.dualio_protocol.frames import FrameKind
from dualio_transports.dualio_protocol.methods import F64, word_at
from tests.conftest import _STARTED, ServerProcess
from tests.contract.faces import Face, Transport
from tests.contract.helpers import PROMPT, TIMER_SLACK, peer_finishes, timed
from tests.scripted_peer import ScriptedPeer, ScriptError, drain, expect, stall, welcome

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]

ROOT = Path(__file__).resolve().parents[2]

# Patient enough to outlast every restart here; max_delay is "one backoff".
PATIENT = RetryPolicy(attempts=50, base_delay=0.05, max_delay=0.25, budget=10.0)
BACKOFF_SLACK = 0.5  # scheduling on a busy 2-core machine, on top of one backoff
DOWN = 0.3  # seconds a restarted server stays down


# -- real servers on a fixed port -------------------------------------------------------

_LAUNCHER = """\
import sys
import dualio.server.async_model, dualio.server.main, dualio.server.threaded_model
from dualio.cli import main
argv = sys.stdin.readline().split()
sys.stdin.close()
sys.exit(main(argv) if argv else 0)
"""


class _Warm:
    """A Python process with the server imported, waiting for ``dualio serve``'s arguments."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        _STARTED.append(self.process)  # killed at the end of the session whatever happens

    def discard(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


_WARM: list[_Warm] = []
_WARM_AHEAD = 2


def _take_warm(replenish: bool = True) -> _Warm:
    warm = _WARM.pop(0) if _WARM else _Warm()
    while replenish and len(_WARM) < _WARM_AHEAD:
        _WARM.append(_Warm())
    return warm


@pytest.fixture(scope="module", autouse=True)
def _warm_processes() -> Iterator[None]:
    yield
    while _WARM:
        _WARM.pop().discard()


def _free_port() -> int:
    """A port nobody listens on, outside the ephemeral range (so no outgoing connection
    of this machine is given it while a server here is down)."""
    rng = random.Random()
    while True:
        port = rng.randrange(20000, 32000)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


class Server:
    """A real ``dualio serve`` on one fixed port, which can be killed and started again there."""

    def __init__(self, *args: str, port: int | None = None) -> None:
        self.args = args
        self.port = _free_port() if port is None else port
        self.process: subprocess.Popen[str] | None = None

    @property
    def address(self) -> tuple[str, int]:
        return "127.0.0.1", self.port

    def start(self, warm: _Warm | None = None) -> float:
        """Start serving; returns the time it was listening by (monotonic)."""
        assert self.process is None or self.process.poll() is not None, "already running"
        warm = warm or _take_warm()
        process = warm.process
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(" ".join(["serve", "--host", "127.0.0.1", "--port", str(self.port), *self.args]))
        process.stdin.write("\n")
        process.stdin.close()
        line = process.stdout.readline()
        process.stdout.close()
        self.process = process
        if line.strip() != f"listening on 127.0.0.1:{self.port}":
            self.kill()
            raise RuntimeError(f"the server did not start on port {self.port}: {line!r}")
        return time.monotonic()

    def kill(self) -> float:
        """SIGKILL; returns the time it was dead by."""
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)  # in case it was stopped
        self.process.kill()
        self.process.wait(5)
        return time.monotonic()

    def terminate(self) -> float:
        """SIGTERM: the server says goodbye on every connection and exits."""
        assert self.process is not None
        self.process.terminate()
        assert self.process.wait(10) == 0
        return time.monotonic()

    def signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(sig)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()


async def started(*args: str) -> Server:
    server = Server(*args)
    await anyio.to_thread.run_sync(server.start)
    return server


async def killed(server: Server) -> float:
    return await anyio.to_thread.run_sync(server.kill)


async def restarted(server: Server) -> float:
    return await anyio.to_thread.run_sync(server.start)


# -- what the hooks saw ---------------------------------------------------------------------


@dataclass
class Seen:
    """Everything a client's hooks were told."""

    states: list[tuple[ConnectionState, DualioError | None]] = field(default_factory=list)
    started: list[CallStarted] = field(default_factory=list)
    finished: list[CallFinished] = field(default_factory=list)

    def on_state(self, state: ConnectionState, cause: DualioError | None) -> None:
        self.states.append((state, cause))

    def hooks(self) -> dict[str, Callable[..., object]]:
        return {"on_state": self.on_state, "on_request": self.started.append,
                "on_response": self.finished.append}

    def kinds(self) -> list[ConnectionState]:
        return [state for state, _ in self.states]

    def tries(self, method: str, size: int) -> list[int]:
        return [s.attempt for s in self.started if (s.method, s.request_bytes) == (method, size)]

    def outcomes(self, method: str, size: int) -> list[CallFinished]:
        return [f for f in self.finished if (f.method, f.request_bytes) == (method, size)]


RESTARTED = [
    ConnectionState.CONNECTING, ConnectionState.CONNECTED, ConnectionState.DISCONNECTED,
    ConnectionState.RECONNECTING, ConnectionState.CONNECTED, ConnectionState.CLOSED,
]


@dataclass
class Outcome:
    error: Exception | None
    took: float
    ended: float  # monotonic


async def outcome(fn: Callable[[], Awaitable[object]]) -> Outcome:
    error, took = await timed(fn)
    return Outcome(error, took, time.monotonic())


def typed_failure(error: Exception | None) -> bool:
    return isinstance(error, ConnectionLost | RetriesExhausted | DualioTimeout)


# -- a restart mid-call ---------------------------------------------------------------------

USERS = 4


async def test_a_server_restart_mid_call(transport: Transport) -> None:
    """Killed with calls, a raw call and a stream in flight, back on the same port after DOWN
    seconds: idempotent calls are answered after a retry (or fail typed, within their
    timeout), nothing is misrouted, the raw call and the stream are not repeated, calls
    succeed again within one backoff, and the hooks tell it all."""
    server = await started()
    watched_seen, busy_seen = Seen(), Seen()
    try:
        # ``watched`` has every hook (its calls take the face's slow path); ``busy`` only
        # on_state, so its calls take the fast path first.
        watched = await transport.connect(server.address, timeout=5, retry=PATIENT, **watched_seen.hooks())
        busy = await transport.connect(server.address, timeout=5, retry=PATIENT, on_state=busy_seen.on_state)
        try:
            await watched.ping()
            assert await busy.echo(b"warm") == b"warm"
            results: dict[str, Outcome] = {}
            words: list[str] = []
            calls: list[tuple[float, Outcome, str]] = []  # (started, outcome, what was wrong)
            stop = anyio.Event()

            async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
                results[name] = await outcome(fn)

            async def one(text: str, as_bytes: bool, answers: list[object]) -> None:
                if as_bytes:
                    answers.append(await busy.echo(text.encode(), delay=0.01))
                else:
                    answers.append(await busy.upper(text, delay=0.01))

            async def user(n: int) -> None:
                i = 0
                while not stop.is_set():
                    i += 1
                    text = f"{transport.id}/{n}/{i}/{random.random()}"  # unique: a misroute shows
                    answers: list[object] = []
                    begun = time.monotonic()
                    done = await outcome(functools.partial(one, text, i % 2 == 1, answers))
                    expected = text.encode() if i % 2 else text.upper()
                    wrong = "" if done.error or answers == [expected] else f"{expected!r} got {answers!r}"
                    calls.append((begun, done, wrong))

            with anyio.fail_after(15):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(keep, "sleep", lambda: watched.sleep(0.4))
                    tg.start_soon(keep, "bounded sleep", lambda: busy.sleep(0.4, timeout=0.6))
                    tg.start_soon(keep, "raw", lambda: watched.call("echo", F64.pack(0.4) + b"raw"))
                    tg.start_soon(keep, "words", lambda: watched.words(40, 0.05, into=words))
                    for n in range(USERS):
                        tg.start_soon(user, n)
                    while len(words) < 3:  # the stream flows, and so do the calls
                        await anyio.sleep(0.01)
                    killed_at = await killed(server)
                    await anyio.sleep(DOWN)
                    back_at = await restarted(server)
                    results["fresh"] = await outcome(lambda: watched.echo(b"fresh"))
                    while "sleep" not in results or "bounded sleep" not in results:
                        await anyio.sleep(0.05)
                    await anyio.sleep(max(0.0, back_at + 0.4 - time.monotonic()))
                    stop.set()
            assert not watched.closed and not busy.closed
        finally:
            await watched.aclose()
            await busy.aclose()
    finally:
        server.close()

    # Idempotent calls in flight: answered after a retry, within their timeout.
    sleep = results["sleep"]
    assert sleep.error is None, repr(sleep.error)
    assert sleep.took < 5
    tries = watched_seen.tries("sleep", 8)
    assert len(tries) >= 2 and tries == list(range(1, len(tries) + 1)), tries
    [done] = watched_seen.outcomes("sleep", 8)
    assert done.attempts == len(tries) and done.error is None and done.response_bytes == 0
    assert abs(done.duration - sleep.took) < 0.2, (done, sleep)
    # ... or a typed failure within the timeout: this one cannot finish by 0.6 s (its retry
    # starts after the server's return, at least DOWN after the kill, and lasts 0.4 s).
    bounded = results["bounded sleep"]
    assert isinstance(bounded.error, DualioTimeout | RetriesExhausted), repr(bounded.error)
    assert bounded.took < 0.6 + PROMPT / 2

    # The raw call is not repeated: OutcomeUnknown (a ConnectionLost), promptly, after one try.
    raw = results["raw"]
    assert type(raw.error) is OutcomeUnknown, repr(raw.error)
    assert raw.ended - killed_at < PROMPT
    assert watched_seen.tries("echo", 11) == [1]
    [done] = watched_seen.outcomes("echo", 11)
    assert done.attempts == 1 and done.error is raw.error and done.response_bytes == 0

    # The stream is not resumed: StreamInterrupted after the items handed over, all correct.
    cut = results["words"]
    assert isinstance(cut.error, StreamInterrupted), repr(cut.error)
    assert cut.error.delivered == len(words), (cut.error.delivered, words)
    assert 3 <= len(words) < 40
    assert words == [word_at(i) for i in range(len(words))]
    assert cut.ended - killed_at < PROMPT

    # A new call once the server is back: connected and answered within one backoff.
    fresh = results["fresh"]
    assert fresh.error is None, repr(fresh.error)
    assert fresh.took < PATIENT.max_delay + BACKOFF_SLACK
    assert watched_seen.tries("echo", 13) == [1]
    [done] = watched_seen.outcomes("echo", 13)
    assert done.attempts == 1 and done.error is None and done.response_bytes == 5

    # The busy users: nothing misrouted, nothing failed (the policy outlasts the restart),
    # each call within its timeout, and success again within one backoff of the return.
    assert [wrong for _, _, wrong in calls if wrong] == []
    failed = [(round(begun - killed_at, 3), repr(done.error)) for begun, done, _ in calls if done.error]
    assert failed == []
    assert max(done.took for _, done, _ in calls) < 5
    assert any(begun < killed_at < done.ended for begun, done, _ in calls)  # some were in flight
    first_back = min(done.ended for _, done, _ in calls if done.ended > back_at and done.error is None)
    assert first_back - back_at < PATIENT.max_delay + BACKOFF_SLACK
    assert sum(1 for _, done, _ in calls if done.ended > back_at) >= USERS

    # Both clients' states, in order, with the cause of the disconnection.
    for seen in (watched_seen, busy_seen):
        assert seen.kinds() == RESTARTED, seen.states
        [cause] = [cause for state, cause in seen.states if state is ConnectionState.DISCONNECTED]
        assert isinstance(cause, ConnectionLost), repr(cause)
        assert all(cause is None for state, cause in seen.states if state is not ConnectionState.DISCONNECTED)


# -- a server that never comes back ------------------------------------------------------------

FAILING_FOR = 1.0  # seconds of failing calls watched for CPU use
FAIL_TIMEOUT = 0.5
NEVER_BACK = RetryPolicy(attempts=1000, base_delay=0.05, max_delay=0.2, budget=30.0)


async def test_a_server_that_never_comes_back(transport: Transport) -> None:
    """Calls fail within their timeouts with a typed error naming the tries, and the
    client waits between tries instead of spinning."""
    server = await started()
    try:
        client = await transport.connect(server.address, timeout=FAIL_TIMEOUT, retry=NEVER_BACK)
        try:
            assert await client.echo(b"up") == b"up"
            results: dict[str, Outcome] = {}
            failing: list[Outcome] = []

            async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
                results[name] = await outcome(fn)

            async def user(n: int, until: float) -> None:
                methods: list[Callable[[], Awaitable[object]]] = [
                    lambda: client.echo(b"%d" % n), client.ping, client.stats, lambda: client.sleep(0.01),
                ]
                i = 0
                while time.monotonic() < until:
                    failing.append(await outcome(methods[i % len(methods)]))
                    i += 1

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(keep, "sleep", lambda: client.sleep(5))
                    tg.start_soon(keep, "raw", lambda: client.call("sleep", F64.pack(5)))
                    await anyio.sleep(0.1)
                    killed_at = await killed(server)
                    cpu, wall = time.process_time(), time.monotonic()
                    for n in range(3):
                        tg.start_soon(user, n, killed_at + FAILING_FOR)
                cpu, wall = time.process_time() - cpu, time.monotonic() - wall
            assert not client.closed  # it would try again: the failures are retryable
        finally:
            await client.aclose()
    finally:
        server.close()

    raw = results["raw"]
    assert type(raw.error) is OutcomeUnknown, repr(raw.error)
    assert raw.ended - killed_at < PROMPT
    sleep = results["sleep"]
    assert typed_failure(sleep.error), repr(sleep.error)
    assert sleep.took < FAIL_TIMEOUT + 0.1 + PROMPT / 2
    assert len(failing) >= 3
    tries = 0
    for call in failing:
        assert call.took < FAIL_TIMEOUT + PROMPT / 2, call
        if isinstance(call.error, RetriesExhausted):
            error = call.error
            assert f"gave up after {error.attempts} tries" in str(error), str(error)
            assert error.attempts == len(error.errors) >= 1
            # refused connects; a call that found the dead connection first: ConnectionLost, or
            # a (retryable) ClosedError when it failed before the request was sent
            assert all(isinstance(e, ConnectError | ClosedError) and e.retryable for e in error.errors), (
                error.errors
            )
            tries += error.attempts
        else:
            assert isinstance(call.error, DualioTimeout), repr(call.error)
    # No spinning: a try every base_delay/2 at the very most, and the process mostly idle.
    assert tries <= 3 * wall / (NEVER_BACK.base_delay / 2), tries
    assert cpu < 0.35 * wall, f"{cpu:.2f}s of CPU in {wall:.2f}s of failing calls ({len(failing)} calls)"


# -- lazy connect, connect timeouts, the retry budget ------------------------------------------


async def test_a_lazy_client_made_while_the_server_is_down(transport: Transport) -> None:
    server = Server()
    once = await transport.connect(server.address, lazy=True, timeout=3, retry=None)
    patient = await transport.connect(
        server.address, lazy=True, timeout=3, retry=RetryPolicy(attempts=2, base_delay=0.05, max_delay=0.1)
    )
    try:
        assert not once.closed and not patient.closed
        error, took = await timed(lambda: once.echo(b"early"))
        assert type(error) is ConnectError and error.retryable, repr(error)
        assert took < PROMPT
        error, took = await timed(lambda: patient.echo(b"early"))
        assert isinstance(error, RetriesExhausted), repr(error)
        assert error.attempts == 3 and "gave up after 3 tries" in str(error), str(error)
        assert all(type(e) is ConnectError and e.retryable for e in error.errors), error.errors
        assert took < 3
        assert not once.closed and not patient.closed
        await restarted(server)
        for client in (once, patient):
            answer, took = await timed_answer(lambda c=client: c.echo(b"late"))
            assert answer == b"late"
            assert took < PROMPT
    finally:
        await once.aclose()
        await patient.aclose()
        server.close()


async def timed_answer(fn: Callable[[], Awaitable[object]]) -> tuple[object, float]:
    begun = time.monotonic()
    answer = await fn()
    return answer, time.monotonic() - begun


CONNECT_TIMEOUT = 0.2


async def test_a_server_that_never_answers_the_handshake(transport: Transport) -> None:
    """ConnectTimeout within connect_timeout: when connecting, and on a lazy client's first
    call (connect_timeout bounds it, not the call's longer timeout), each try when retried."""
    with ScriptedPeer(expect(FrameKind.HELLO), stall(), handshake=False, connections=3) as peer:
        lazy = await transport.connect(peer.address, lazy=True, connect_timeout=CONNECT_TIMEOUT, timeout=5)
        retried = await transport.connect(
            peer.address, lazy=True, connect_timeout=CONNECT_TIMEOUT, timeout=5,
            retry=RetryPolicy(attempts=2, base_delay=0.05, max_delay=0.05),
        )
        results: dict[str, tuple[Exception | None, float]] = {}

        async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
            results[name] = await timed(fn)

        try:
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(keep, "connect", lambda: transport.connect(
                        peer.address, connect_timeout=CONNECT_TIMEOUT, timeout=5))
                    tg.start_soon(keep, "lazy", lambda: lazy.echo(b"first"))
                    tg.start_soon(keep, "retried", lambda: retried.echo(b"first"))
        finally:
            await lazy.aclose()
            await retried.aclose()
        for name in ("connect", "lazy"):
            error, took = results[name]
            assert isinstance(error, ConnectTimeout), (name, repr(error))
            assert CONNECT_TIMEOUT - TIMER_SLACK <= took < CONNECT_TIMEOUT + PROMPT, (name, took)
        error, took = results["retried"]
        assert isinstance(error, RetriesExhausted) and error.attempts == 3, repr(error)
        assert all(isinstance(e, ConnectTimeout) for e in error.errors), error.errors
        assert 3 * CONNECT_TIMEOUT - TIMER_SLACK <= took < 3 * CONNECT_TIMEOUT + 0.1 + PROMPT
        assert peer.kinds[:1] == [FrameKind.HELLO]


@pytest.mark.parametrize("hooked", [False, True], ids=["plain", "hooked"])
async def test_retries_exhausted_is_one_clear_error(transport: Transport, hooked: bool) -> None:
    """Nobody listens: after 1 + attempts tries, one RetriesExhausted naming them (not
    nested), with every try told to the hooks; and the budget bounds the tries in time."""
    seen = Seen()
    hooks = seen.hooks() if hooked else {}
    with socket.socket() as holder:  # bound, not listening: every connect is refused
        holder.bind(("127.0.0.1", 0))
        address = holder.getsockname()[:2]
        counted = await transport.connect(
            address, lazy=True, retry=RetryPolicy(attempts=3, base_delay=0.02, max_delay=0.05), **hooks
        )
        budgeted = await transport.connect(
            address, lazy=True, retry=RetryPolicy(attempts=100, base_delay=0.1, max_delay=0.1, budget=0.3),
        )
        results: dict[str, tuple[Exception | None, float]] = {}

        async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
            results[name] = await timed(fn)

        try:
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(keep, "counted", lambda: counted.echo(b"nobody"))
                    tg.start_soon(keep, "budgeted", lambda: budgeted.echo(b"nobody"))
        finally:
            await counted.aclose()
            await budgeted.aclose()
    error, took = results["counted"]
    assert type(error) is RetriesExhausted, repr(error)
    assert str(error).startswith("gave up after 4 tries: "), str(error)
    assert error.attempts == 4 and len(error.errors) == 4
    assert all(type(e) is ConnectError for e in error.errors), error.errors
    assert error.__cause__ is error.errors[-1]
    assert took < PROMPT
    error, took = results["budgeted"]
    assert type(error) is RetriesExhausted, repr(error)
    assert "(retry budget 0.3s)" in str(error) and f"after {error.attempts} tries" in str(error)
    assert 2 <= error.attempts <= 7, error.attempts  # waits of 0.05..0.1 s fit 0.3 s at most 6 times
    assert took < 0.3 + PROMPT / 2
    if hooked:
        assert seen.started == [CallStarted("echo", 8 + 6, attempt, 1) for attempt in (1, 2, 3, 4)]
        [done] = seen.finished
        assert done.call_number == 1  # the client's first call: every try and its end say so
        assert (done.method, done.request_bytes, done.response_bytes, done.attempts) == ("echo", 14, 0, 4)
        assert isinstance(done.error, RetriesExhausted) and done.error.attempts == 4
        # a failed first connect, then tries again: each later one is a reconnect
        assert seen.kinds() == [
            ConnectionState.CONNECTING, ConnectionState.RECONNECTING, ConnectionState.CLOSED
        ], seen.states


# -- a busy server ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def busy_server() -> Iterator[Server]:
    server = Server("--max-connections", "1")
    server.start()
    yield server
    server.close()


async def test_a_busy_server_is_tried_again(transport: Transport, busy_server: Server) -> None:
    """Over its connection cap the server refuses with BUSY: nothing was served, so even a
    raw call is tried again, and both it and an idempotent call succeed once a slot frees."""
    holder = Client(*busy_server.address, lazy=True, timeout=5, retry=PATIENT)  # takes the one slot
    client = await transport.connect(busy_server.address, lazy=True, timeout=5, retry=PATIENT)
    try:
        assert await anyio.to_thread.run_sync(holder.echo, b"hold") == b"hold"
        results: dict[str, Outcome] = {}

        async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
            results[name] = await outcome(fn)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(keep, "raw", lambda: client.call("echo", F64.pack(0) + b"raw"))
                tg.start_soon(keep, "echo", lambda: client.echo(b"idempotent"))
                await anyio.sleep(0.3)
                assert results == {}  # both still trying
                await anyio.to_thread.run_sync(holder.close)
                freed_at = time.monotonic()
    finally:
        await anyio.to_thread.run_sync(holder.close)
        await client.aclose()
    for name, done in results.items():
        assert done.error is None, (name, repr(done.error))
        assert done.ended - freed_at < PATIENT.max_delay + BACKOFF_SLACK, name


# -- connecting inside a call's timeout, closing while connecting, a token that changes ------------


async def test_a_calls_timeout_bounds_its_connect_too(transport: Transport) -> None:
    """The handshake takes 0.3 s and the answer never comes: a call with timeout=0.5 that
    connects first fails by 0.5 s, not 0.3 + 0.5 s."""
    with ScriptedPeer(
        expect(FrameKind.HELLO), stall(0.3), welcome(), expect(FrameKind.REQUEST), stall(), handshake=False
    ) as peer:
        client = await transport.connect(peer.address, lazy=True, timeout=5, retry=PATIENT)
        try:
            error, took = await timed(lambda: client.echo(b"slow", timeout=0.5))
        finally:
            await client.aclose()
        assert isinstance(error, DualioTimeout), repr(error)
        assert took < 0.5 + 0.15, f"a call with timeout=0.5 took {took:.2f}s"




async def test_a_reconnect_refused_for_its_token_leaves_the_client_closed(transport: Transport) -> None:
    server = await started("--token", "before")
    try:
        client = await transport.connect(server.address, token="before", retry=PATIENT)
        try:
            assert await client.echo(b"in") == b"in"
            await killed(server)
            server.args = ("--token", "after")  # restarted with a new token
            await restarted(server)
            error, took = await timed(lambda: client.echo(b"refused"))
            assert type(error) is AuthenticationError, repr(error)  # not retried: it cannot mend
            assert took < PROMPT
            assert client.closed
        finally:
            await client.aclose()
    finally:
        server.close()


CONNECTING_FOR = 0.8  # connect_timeout of the clients closed while connecting


async def test_closing_fails_a_call_that_is_connecting_promptly(transport: Transport) -> None:
    """close() from another task or thread stops a connect in progress (here: in the
    handshake, the server silent) at once; the call that was connecting gets ClosedError."""
    with ScriptedPeer(expect(FrameKind.HELLO), stall(), handshake=False) as peer:
        client = await transport.connect(
            peer.address, lazy=True, timeout=5, connect_timeout=CONNECTING_FOR, retry=PATIENT
        )
        results: dict[str, Outcome] = {}

        async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
            results[name] = await outcome(fn)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(keep, "call", lambda: client.echo(b"connecting"))
                await anyio.sleep(0.1)
                await keep("close", client.aclose)
    close, call = results["close"], results["call"]
    assert close.error is None and close.took < PROMPT / 2, f"closing took {close.took:.2f}s"
    assert type(call.error) is ClosedError, repr(call.error)
    assert call.ended - close.ended < PROMPT / 2


async def test_a_connect_that_completes_after_close_leaves_nothing_open(transport: Transport) -> None:
    """Closed while a call connects, and the handshake completes after that: the call fails
    with ClosedError, CLOSED stays the last state, and the new connection is closed."""
    seen = Seen()
    peer = ScriptedPeer(expect(FrameKind.HELLO), stall(0.3), welcome(), drain(), handshake=False)
    client = await transport.connect(
        peer.address, lazy=True, timeout=CONNECTING_FOR, retry=PATIENT, on_state=seen.on_state
    )
    results: dict[str, Outcome] = {}

    async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
        results[name] = await outcome(fn)

    try:
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(keep, "call", lambda: client.echo(b"connecting"))
                await anyio.sleep(0.1)
                await keep("close", client.aclose)
        hung_up = await peer_finishes(peer)
        leaked = client.client._conn
    finally:
        await _close_transport(client)  # what the client should have closed, so no case after inherits it
        try:
            peer.close()
        except ScriptError:
            pass  # "the client did not hang up": asserted below
    call = results["call"]
    assert isinstance(call.error, ClosedError), repr(call.error)
    assert call.took < 0.3 + PROMPT / 2, f"the call ended after {call.took:.2f}s"
    assert seen.kinds()[-1] is ConnectionState.CLOSED, seen.states
    assert leaked is None or leaked.closed, "a connection is open on the closed client"
    assert hung_up, "the client never hung up on the server"


async def _close_transport(face: Face) -> None:
    conn = face.client._conn
    if conn is None or conn.closed:
        return
    if isinstance(face.client, Client):
        await anyio.to_thread.run_sync(conn.close)  # type: ignore[union-attr]
    else:
        await conn.aclose()  # type: ignore[union-attr]


# -- a raw call after a restart that happened while the client was idle ----------------------------

async def test_a_raw_call_after_an_idle_restart_reconnects_first(transport: Transport) -> None:
    """The server restarts while the client is idle: the connection it closed is not used
    again (a transport that does not read while idle reads its end before sending), so
    even a call that is never repeated is answered by the new server."""
    server = await started()
    try:
        client = await transport.connect(server.address, retry=PATIENT)
        try:
            assert await client.echo(b"before") == b"before"
            await killed(server)
            await anyio.sleep(0.1)
            await restarted(server)
            error, took = await timed(lambda: client.call("echo", F64.pack(0) + b"raw"))
            assert error is None, repr(error)
            assert took < PROMPT
        finally:
            await client.aclose()
    finally:
        server.close()


# -- an idle connection and the server's idle timeout ---------------------------------------------

IDLE_TIMEOUT = 0.6  # the server closes a connection silent for this long
# (at 0.3 s, with four test processes on two cores, the server once closed the reconnected
# connection too before the call's request reached it, and the client reconnected again)
IDLE_KEEPALIVE = 0.08


@pytest.fixture(scope="module")
def impatient_server() -> Iterator[Server]:
    server = Server("--idle-timeout", str(IDLE_TIMEOUT))
    server.start()
    yield server
    server.close()


async def test_an_idle_connection_is_not_pinged_but_checked_before_the_next_call(
    transport: Transport, impatient_server: Server
) -> None:
    """One rule on every transport: an idle connection gets no keepalive PING. After idling
    past the server's idle timeout, a raw call (never repeated) is answered on a new
    connection, opened because the check before the call found the old one closed."""
    seen = Seen()
    client = await transport.connect(
        impatient_server.address, keepalive=IDLE_KEEPALIVE, retry=PATIENT, on_state=seen.on_state
    )
    try:
        assert await client.echo(b"busy") == b"busy"
        await anyio.sleep(IDLE_TIMEOUT * 1.7)
        error, _ = await timed(lambda: client.call("echo", F64.pack(0) + b"raw"))
        assert error is None, repr(error)
        assert seen.kinds() == [
            ConnectionState.CONNECTING, ConnectionState.CONNECTED, ConnectionState.DISCONNECTED,
            ConnectionState.RECONNECTING, ConnectionState.CONNECTED,
        ], seen.states
    finally:
        await client.aclose()


async def test_a_stream_as_the_first_call_after_an_idle_close_goes_out_on_a_new_connection(
    transport: Transport, impatient_server: Server
) -> None:
    """As a call does: the server closed the idle connection, so the stream's request never
    left on it, and it is sent on a new connection instead of failing with ClosedError."""
    client = await transport.connect(impatient_server.address, keepalive=None, retry=PATIENT)
    try:
        assert await client.echo(b"busy") == b"busy"
        await anyio.sleep(IDLE_TIMEOUT * 1.7)
        assert await client.words(3) == [word_at(n) for n in range(3)]
    finally:
        await client.aclose()


STREAM_TIMEOUT = 1.5
LATENCY = 1.0  # each answer's way back, the handshake's included


async def test_a_stream_that_reconnects_first_counts_the_reconnect_against_its_first_item(
    transport: Transport, server: ServerProcess
) -> None:
    """The stream's first item is due ``timeout`` after the stream began, however much of
    that the reconnect before it took (as a call's answer is): here the handshake takes
    LATENCY, the first item LATENCY more, so the stream times out at its timeout."""
    with FaultProxy(server.address) as proxy:
        client = await transport.connect(proxy.address, timeout=STREAM_TIMEOUT, retry=PATIENT)
        try:
            assert await client.echo(b"before") == b"before"
            proxy.set(Toxic("reset_peer"))
            await anyio.sleep(0.2)  # the idle connection is reset
            proxy.set(Toxic("latency", LATENCY))
            error, took = await timed(lambda: client.words(3))
            assert isinstance(error, DualioTimeout), repr(error)
            assert STREAM_TIMEOUT - TIMER_SLACK <= took < STREAM_TIMEOUT + PROMPT, took
        finally:
            proxy.clear()
            with anyio.CancelScope(shield=True):
                await client.aclose()


# -- a half-open server ---------------------------------------------------------------------------

KEEPALIVE = 0.5


async def test_a_half_open_server_is_found_by_keepalive(transport: Transport) -> None:
    """The server process stopped (its kernel still holds the connection open): a call
    with no timeout fails with ConnectionLost within two keepalive intervals."""
    server = await started()
    try:
        once = await transport.connect(server.address, timeout=None, keepalive=KEEPALIVE)
        patient = await transport.connect(server.address, timeout=None, keepalive=KEEPALIVE, retry=PATIENT)
        try:
            assert await once.echo(b"up") == b"up"
            assert await patient.echo(b"up") == b"up"
            server.signal(signal.SIGSTOP)
            results: dict[str, tuple[Exception | None, float]] = {}

            async def keep(name: str, fn: Callable[[], Awaitable[object]]) -> None:
                results[name] = await timed(fn)

            with anyio.fail_after(2 * KEEPALIVE + 5):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(keep, "sleep", lambda: once.sleep(30))
                    tg.start_soon(keep, "raw", lambda: patient.call("sleep", F64.pack(30)))
            for name, (error, took) in results.items():  # the raw call's effect is unknown
                expected = OutcomeUnknown if name == "raw" else ConnectionLost
                assert type(error) is expected, (name, repr(error))
                assert KEEPALIVE <= took < 2 * KEEPALIVE + PROMPT / 2, (name, took)
            assert once.closed  # retry=None: failed for good
            assert not patient.closed  # it would reconnect
        finally:
            server.signal(signal.SIGCONT)
            await once.aclose()
            await patient.aclose()
    finally:
        server.close()


# -- from_url -------------------------------------------------------------------------------------

TOKEN = "s3cret:/@%?&x y"


@pytest.fixture(scope="module")
def token_server() -> Iterator[Server]:
    server = Server("--token", TOKEN.replace(" ", "_"))
    server.start()
    yield server
    server.close()


async def test_from_url(transport: Transport, token_server: Server) -> None:
    host, port = token_server.address
    token = quote(TOKEN.replace(" ", "_"), safe="")
    client = await transport.from_url(f"dualio://:{token}@{host}:{port}?timeout=4&keepalive=none&lazy=1")
    try:
        assert client.client.timeout == 4
        assert await client.echo(b"by url") == b"by url"
        assert (await client.stats()).connections_open >= 1
    finally:
        await client.aclose()
    wrong = await transport.from_url(f"dualio://:nope@{host}:{port}?lazy=1", retry=PATIENT)
    try:
        error, took = await timed(lambda: wrong.echo(b"x"))
        assert type(error) is AuthenticationError, repr(error)  # not retried: it cannot mend
        assert took < PROMPT
    finally:
        await wrong.aclose()


# -- the blocking client leaves nothing behind ----------------------------------------------------


def _fds() -> dict[int, str]:
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            pass  # the directory's own fd, closed by now
    return found


def test_the_blocking_client_leaves_no_threads_or_fds() -> None:
    """Restarts (killed, then stopped gracefully), a stream cut, a call failing while the
    server is down, a lazy client: no call misrouted or failed, and once the clients are
    closed this process has exactly the threads and fds it had before."""
    warm = [_take_warm(replenish=False) for _ in range(3)]  # their pipes are in the baseline
    threads_before, fds_before = set(threading.enumerate()), _fds()
    server = Server()
    server.start(warm[0])
    try:
        client = Client(*server.address, timeout=3, retry=PATIENT, keepalive=0.5)
        lazy = Client(*server.address, timeout=0.5, lazy=True, retry=RetryPolicy(attempts=1, base_delay=0.05))
        wrong: list[str] = []
        errors: list[BaseException] = []
        stop = threading.Event()

        def user(n: int) -> None:
            i = 0
            while not stop.is_set():
                i += 1
                payload = b"%d/%d" % (n, i)
                try:
                    if client.echo(payload, delay=0.005) != payload:
                        wrong.append(f"{payload!r}")
                except DualioError as exc:
                    errors.append(exc)

        def stream() -> None:
            try:
                for _ in client.words(100, 0.02):
                    pass
            except StreamInterrupted:
                pass

        workers = [threading.Thread(target=user, args=(n,)) for n in range(4)]
        workers.append(threading.Thread(target=stream))
        for worker in workers:
            worker.start()
        time.sleep(0.2)
        server.kill()
        with pytest.raises(RetriesExhausted):
            lazy.echo(b"down")
        time.sleep(DOWN)
        server.start(warm[1])
        time.sleep(0.3)
        assert lazy.echo(b"up") == b"up"
        server.terminate()  # again, now a graceful stop: goodbye on the second connection
        time.sleep(DOWN)
        server.start(warm[2])
        time.sleep(0.3)
        stop.set()
        for worker in workers:
            worker.join(5)
        assert not any(worker.is_alive() for worker in workers)
        assert wrong == [] and errors == []
        assert client.echo(b"end") == b"end"
        client.close()
        lazy.close()
        server.kill()
        leaked_threads = set(threading.enumerate()) - threads_before
        fds_after = _fds()
        leaked_fds = {fd: target for fd, target in fds_after.items() if fds_before.get(fd) != target}
        assert not leaked_threads, leaked_threads
        assert not leaked_fds, leaked_fds
    finally:
        server.close()
        for process in warm:
            process.discard()



async def test_a_stream_is_one_call_to_the_hooks(transport: Transport, server: ServerProcess) -> None:
    """Taken whole, left early, or failed: each stream is one CallStarted and, once it ended,
    one CallFinished with the size of what was delivered."""
    seen = Seen()
    client = await transport.connect((server.host, server.port), **seen.hooks())
    try:
        whole = await client.words(5)
        first = await client.words(10, 0.01, take=2)
        with pytest.raises(DualioTimeout):  # the first word within 0.5 s even on a loaded machine
            await client.words(3, 2.0, timeout=0.5)
        with anyio.fail_after(5):  # an async generator left early is closed by the loop, soon
            while len(seen.finished) < 3:
                await anyio.sleep(0.01)
    finally:
        await client.aclose()
    assert [(s.method, s.attempt) for s in seen.started] == [("words", 1)] * 3
    assert len(seen.finished) == 3
    done = [f for f in seen.finished if f.error is None and f.response_bytes == sum(map(len, whole))]
    assert len(done) == 1 and done[0].request_id is not None and done[0].attempts == 1
    left = [f for f in seen.finished if f.error is None and f.response_bytes == sum(map(len, first))]
    assert len(left) == 1
    [failed] = [f for f in seen.finished if f.error is not None]
    assert isinstance(failed.error, DualioTimeout)
    assert failed.response_bytes == len(word_at(0))  # the first word comes at once, the next never in time
    assert 0.5 - TIMER_SLACK <= failed.duration < 0.5 + PROMPT
