"""A call's deadline on both faces, with a fake clock: it expires during the connect, the
write, the read, a retry's backoff and a reconnect, and each ends the call as it should,
by its deadline, with nothing slept. The faces' own code runs (dualio/face_calls.py and its
generated twin); their transport is a stand-in that takes time only by moving the clock,
so what is tested is the faces' arithmetic, not a socket's (the contract suite runs every
real transport against real servers)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import pytest

import dualio.face_calls as async_calls
import dualio_sync.face_calls as blocking_calls
from dualio import AsyncClient, ConnectTimeout, DualioTimeout, RetriesExhausted, RetryPolicy
from dualio_sync import Client
from dualio_transports.policy import retry as retry_module
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire import deadline as deadline_module
from dualio_transports.wire import failures
from dualio_transports.wire.errors import ConnectionLost, DualioError
from dualio_transports.wire.request import Request

START = 1000.0
TIMEOUT = 1.0
Step = tuple[str, float]  # what the next call meets ("answer", "write", "lost") and how long it takes


class FakeClock:
    def __init__(self) -> None:
        self.now = START

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The clock the faces make and judge deadlines by (their calls, wire/deadline.py) and
    the retry series keeps its budget by, and only theirs."""
    fake = FakeClock()
    stand_in = types.SimpleNamespace(monotonic=fake.monotonic, perf_counter=fake.monotonic)
    for module in (deadline_module, retry_module, async_calls, blocking_calls):
        monkeypatch.setattr(module, "time", stand_in)
    return fake


class StandIn:
    """A connection that answers by a script: each call meets the next step, taking its
    time on the fake clock; a step past the call's deadline ends it as a transport would
    (before its request left: it timed out writing; after: the call timed out)."""

    def __init__(self, clock: FakeClock, steps: list[Step]) -> None:
        self._clock, self._steps = clock, steps
        self.failure: DualioError | None = None
        self._closed = False
        self.dropped = 0
        self.sent = 0

    @property
    def closed(self) -> bool:
        return self._closed or self.failure is not None

    def _call(self, request: Request[Any], until: float, sent: list[int] | None) -> Any:
        what, seconds = self._steps.pop(0)
        self._clock.advance(seconds)
        if what == "write":
            assert self._clock.now >= until, "a write step is one that outlasts the call"
            raise failures.write_timeout()
        self.sent += 1
        if sent is not None:
            sent.append(self.sent)
        if what == "lost":
            self.failure = failures.peer_closed()
            raise self.failure
        if self._clock.now >= until:
            raise failures.call_timeout()
        return request.decode(b"answer")

    def close(self) -> None:
        self._closed = True


class AsyncStandIn(StandIn):
    def __init__(self, clock: FakeClock, steps: list[Step]) -> None:
        super().__init__(clock, steps)
        self.loop = LoopHandle.current()

    async def call(self, request: Request[Any], until: float, sent: list[int] | None = None) -> Any:
        return self._call(request, until, sent)

    async def aclose(self) -> None:
        self.close()


class BlockingStandIn(StandIn):
    def call(self, request: Request[Any], until: float, sent: list[int] | None = None) -> Any:
        return self._call(request, until, sent)


def _connect(clock: FakeClock, face: Any, until: float, connects: list[float]) -> None:
    """A connect that takes the script's next time, by the attempt's deadline (the call's,
    or ``connect_timeout`` from now, as a transport applies it)."""
    until = face._options.connect_deadline(until)
    clock.advance(connects.pop(0))
    if clock.now >= until:
        raise failures.connect_failed(f"{face.host}:{face.port}", TimeoutError())


def blocking_face(clock: FakeClock, connects: list[float], steps: list[Step], **options: Any) -> Client:
    class Scripted(Client):
        def _connect_transport(self, until: float, connecting: object = None) -> Any:
            _connect(clock, self, until, connects)
            return BlockingStandIn(clock, steps)

        def _pause(self, seconds: float) -> None:
            clock.advance(seconds)

    return Scripted(timeout=TIMEOUT, lazy=True, **options)


def async_face(clock: FakeClock, connects: list[float], steps: list[Step], **options: Any) -> AsyncClient:
    class Scripted(AsyncClient):
        async def _connect_transport(self, until: float) -> Any:
            _connect(clock, self, until, connects)
            return AsyncStandIn(clock, steps)

        async def _pause(self, seconds: float) -> None:
            clock.advance(seconds)

    return Scripted(timeout=TIMEOUT, lazy=True, **options)


Run = Callable[[FakeClock, list[float], list[Step], dict[str, Any]], BaseException | None]


def run_blocking(clock: FakeClock, connects: list[float], steps: list[Step], options: dict[str, Any]) -> Any:
    with blocking_face(clock, connects, steps, **options) as client:
        try:
            client.echo(b"x")
        except DualioError as exc:
            return exc
    return None


def run_async(clock: FakeClock, connects: list[float], steps: list[Step], options: dict[str, Any]) -> Any:
    import asyncio

    async def main() -> Any:
        async with async_face(clock, connects, steps, **options) as client:
            try:
                await client.echo(b"x")
            except DualioError as exc:
                return exc
        return None

    return asyncio.run(main())


FACES = [pytest.param(run_blocking, id="blocking"), pytest.param(run_async, id="async")]
NO_RETRY: dict[str, Any] = {"retry": None}


@pytest.mark.parametrize("run", FACES)
def test_a_connect_that_takes_the_call_s_time_ends_the_call(clock: FakeClock, run: Run) -> None:
    error = run(clock, [TIMEOUT * 2], [], NO_RETRY)
    assert isinstance(error, ConnectTimeout), repr(error)
    assert clock.now == START + TIMEOUT * 2  # the stand-in took it; the face added nothing


@pytest.mark.parametrize("run", FACES)
def test_a_connect_past_the_deadline_is_not_tried_again(clock: FakeClock, run: Run) -> None:
    error = run(clock, [TIMEOUT * 2], [], {"retry": RetryPolicy()})
    assert isinstance(error, RetriesExhausted) and "the call's timeout ends before the next try" in str(error)
    assert isinstance(error.errors[-1], ConnectTimeout)
    assert clock.now == START + TIMEOUT * 2  # no pause: the next try could not end in time


@pytest.mark.parametrize("run", FACES)
def test_a_write_past_the_deadline_times_out_unsent(clock: FakeClock, run: Run) -> None:
    error = run(clock, [0.1], [("write", TIMEOUT)], NO_RETRY)
    assert isinstance(error, DualioTimeout) and "writing the request" in str(error)
    assert error.request_id is None  # never sent


@pytest.mark.parametrize("run", FACES)
def test_a_read_past_the_deadline_times_out_naming_its_request(clock: FakeClock, run: Run) -> None:
    error = run(clock, [0.1], [("answer", TIMEOUT)], NO_RETRY)
    assert isinstance(error, DualioTimeout) and str(error).startswith("the call timed out")
    assert error.request_id == 1


@pytest.mark.parametrize("run", FACES)
def test_a_backoff_that_would_end_past_the_deadline_is_not_waited(clock: FakeClock, run: Run) -> None:
    policy = RetryPolicy(attempts=5, base_delay=0.5, max_delay=0.5)  # each pause 0.25-0.5 s
    error = run(clock, [0.0, 0.0], [("lost", TIMEOUT - 0.2), ("answer", 0.0)], {"retry": policy})
    assert isinstance(error, RetriesExhausted) and "the call's timeout ends before the next try" in str(error)
    assert isinstance(error.errors[-1], ConnectionLost)
    assert clock.now == START + TIMEOUT - 0.2  # the pause was never taken


@pytest.mark.parametrize("run", FACES)
def test_a_reconnect_after_a_backoff_counts_against_the_same_deadline(clock: FakeClock, run: Run) -> None:
    policy = RetryPolicy(attempts=5, base_delay=0.02, max_delay=0.02)  # each pause 0.01-0.02 s
    error = run(clock, [0.0, TIMEOUT], [("lost", 0.1)], {"retry": policy})
    # the reconnect took the rest of the call's time: its attempt's deadline was the call's
    assert isinstance(error, RetriesExhausted), repr(error)
    assert isinstance(error.errors[-1], ConnectTimeout)
    assert START + 0.1 + TIMEOUT < clock.now <= START + 0.1 + 0.02 + TIMEOUT


@pytest.mark.parametrize("run", FACES)
def test_a_call_that_ends_in_time_after_a_retry_succeeds(clock: FakeClock, run: Run) -> None:
    policy = RetryPolicy(attempts=5, base_delay=0.02, max_delay=0.02)
    assert run(clock, [0.0, 0.1], [("lost", 0.1), ("answer", 0.1)], {"retry": policy}) is None
    assert clock.now < START + TIMEOUT
