"""The emulation primitives: completion callbacks, ``emulate_async``, and the
callback mode of the blocking connection (against the real server).

Async tests run on asyncio and on trio through anyio's pytest plugin.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
import trio

from dualio_transports.dualio_protocol import methods
from dualio_transports.emulation.adapter import default_workers, emulate_async, run_blocking
from dualio_transports.emulation.callbacks import AwaitableCallback, EventedCallback
from dualio_transports.emulation.reader_thread_connection import ReaderThreadConnection
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.wire import procedure
from dualio_transports.wire.deadline import ItemDeadlines, deadline
from dualio_transports.wire.errors import CallCancelled, ClosedError, DualioTimeout, UsageError
from tests.conftest import ServerProcess

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- helpers ------------------------------------------------------------------------


def in_thread(fn: Callable[[], object], *, delay: float = 0.0, join: bool = True) -> tuple[
    threading.Thread, list[BaseException]
]:
    """Run ``fn`` on a fresh thread; the list collects whatever it raised."""
    errors: list[BaseException] = []

    def run() -> None:
        if delay:
            time.sleep(delay)
        try:
            fn()
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    if join:
        thread.join(5)
        assert not thread.is_alive(), "the calling thread hung"
    return thread, errors


class LoopErrors:
    """Records what reaches the asyncio loop's exception handler.

    On trio there is no handler: an exception in a ``run_sync_soon`` callback
    crashes the whole run (TrioInternalError), which fails the test by itself.
    """

    def __init__(self, backend: str) -> None:
        self.calls: list[dict[str, Any]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        if backend == "asyncio":
            self._loop = asyncio.get_running_loop()
            self._previous = self._loop.get_exception_handler()
            self._loop.set_exception_handler(lambda loop, context: self.calls.append(context))

    def restore(self) -> None:
        if self._loop is not None:
            self._loop.set_exception_handler(self._previous)


# -- AwaitableCallback --------------------------------------------------------------


@pytest.mark.anyio
async def test_awaitable_result_from_a_foreign_thread(anyio_backend: str) -> None:
    cb: AwaitableCallback[str] = AwaitableCallback()
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def complete() -> None:
        seen.append(threading.get_ident())
        cb(result="hello")

    # the awaiter is already waiting when the other thread completes it
    thread, errors = in_thread(complete, delay=0.05, join=False)
    with anyio.fail_after(2):
        assert await cb.wait() == "hello"
    thread.join(2)
    assert errors == []
    assert seen and seen[0] != loop_thread
    assert cb.done


@pytest.mark.anyio
async def test_awaitable_is_awaitable_directly_and_completed_before_the_await(
    anyio_backend: str,
) -> None:
    cb: AwaitableCallback[int] = AwaitableCallback()
    _, errors = in_thread(lambda: cb.callback(result=42))
    assert errors == []
    with anyio.fail_after(2):
        assert await cb == 42


@pytest.mark.anyio
async def test_awaitable_error_from_a_foreign_thread(anyio_backend: str) -> None:
    cb: AwaitableCallback[int] = AwaitableCallback()
    boom = ValueError("boom")
    thread, errors = in_thread(lambda: cb(error=boom), delay=0.05, join=False)
    with anyio.fail_after(2), pytest.raises(ValueError) as info:
        await cb.wait()
    assert info.value is boom
    thread.join(2)
    assert errors == []


@pytest.mark.anyio
async def test_awaitable_first_completion_wins(anyio_backend: str) -> None:
    cb: AwaitableCallback[int] = AwaitableCallback()

    def many() -> None:
        cb(result=1)
        cb(result=2)
        cb(error=ValueError("late"))
        cb()  # no result= at all: would be a TypeError if it were built
        cb.callback(result=3)

    _, errors = in_thread(many)
    assert errors == []
    with anyio.fail_after(2):
        assert await cb.wait() == 1
        assert await cb.wait() == 1  # stays completed


@pytest.mark.anyio
async def test_awaitable_error_first_wins_over_later_results(anyio_backend: str) -> None:
    cb: AwaitableCallback[int] = AwaitableCallback()
    _, errors = in_thread(lambda: (cb(error=KeyError("k")), cb(result=5)))
    assert errors == []
    with anyio.fail_after(2), pytest.raises(KeyError):
        await cb.wait()


@pytest.mark.anyio
async def test_awaitable_fifty_threads_exactly_one_wins(anyio_backend: str) -> None:
    built: list[int] = []
    build_lock = threading.Lock()

    def build(**kwargs: Any) -> int:
        with build_lock:
            built.append(kwargs["result"])
        return int(kwargs["result"])

    cb: AwaitableCallback[int] = AwaitableCallback(build=build)
    barrier = threading.Barrier(50)
    errors: list[BaseException] = []

    def racer(i: int) -> None:
        try:
            barrier.wait(5)
            cb(result=i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=racer, args=(i,), daemon=True) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    with anyio.fail_after(2):
        winner = await cb.wait()
    assert built == [winner]
    assert 0 <= winner < 50


@pytest.mark.anyio
async def test_awaitable_completed_after_its_awaiter_was_cancelled(anyio_backend: str) -> None:
    recorder = LoopErrors(anyio_backend)
    try:
        cb: AwaitableCallback[int] = AwaitableCallback()
        cancelled = False
        with anyio.fail_after(2):
            async with anyio.create_task_group() as tg:

                async def awaiter() -> None:
                    nonlocal cancelled
                    with anyio.CancelScope() as scope:
                        scope_holder.append(scope)
                        await cb.wait()
                    cancelled = scope.cancelled_caught

                scope_holder: list[anyio.CancelScope] = []
                tg.start_soon(awaiter)
                await anyio.sleep(0.05)
                scope_holder[0].cancel()
        assert cancelled
        assert not cb.done

        _, errors = in_thread(lambda: cb(result=7))
        assert errors == []
        # let the scheduled completion run on the loop
        with anyio.fail_after(2):
            while not cb.done:
                await anyio.sleep(0.01)
            await anyio.sleep(0.05)
        assert recorder.calls == []
    finally:
        recorder.restore()


def test_awaitable_completed_after_its_asyncio_loop_closed() -> None:
    loop = asyncio.new_event_loop()

    async def make() -> AwaitableCallback[int]:
        return AwaitableCallback()

    try:
        cb = loop.run_until_complete(make())
    finally:
        loop.close()
    assert loop.is_closed()
    _, errors = in_thread(lambda: cb(result=1))
    assert errors == []
    # and a second call is just as quiet
    _, errors = in_thread(lambda: cb(error=ValueError("late")))
    assert errors == []


def test_awaitable_completed_after_its_trio_run_finished() -> None:
    async def make() -> AwaitableCallback[int]:
        return AwaitableCallback()

    cb = trio.run(make)
    _, errors = in_thread(lambda: cb(result=1))
    assert errors == []


@pytest.mark.anyio
async def test_awaitable_build_failure_reaches_the_awaiter(anyio_backend: str) -> None:
    cb: AwaitableCallback[int] = AwaitableCallback(build=lambda **kw: 1 // 0)
    thread, errors = in_thread(lambda: cb(result=1), delay=0.02, join=False)
    with anyio.fail_after(2), pytest.raises(ZeroDivisionError):
        await cb.wait()
    thread.join(2)
    assert errors == []


@pytest.mark.anyio
async def test_awaitable_called_without_result_reaches_the_awaiter(anyio_backend: str) -> None:
    cb: AwaitableCallback[int] = AwaitableCallback()
    thread, errors = in_thread(lambda: cb(value=1), delay=0.02, join=False)
    with anyio.fail_after(2), pytest.raises(TypeError, match="without result="):
        await cb.wait()
    thread.join(2)
    assert errors == []


def test_awaitable_needs_a_running_loop() -> None:
    with pytest.raises(UsageError):
        AwaitableCallback()


@pytest.mark.anyio
async def test_awaitable_made_on_a_thread_without_a_loop(anyio_backend: str) -> None:
    # a loop runs in the main thread, but not in this one
    _, errors = in_thread(AwaitableCallback)
    assert len(errors) == 1
    assert isinstance(errors[0], UsageError)


# -- EventedCallback ----------------------------------------------------------------


def test_evented_result() -> None:
    cb: EventedCallback[bytes] = EventedCallback()
    _, errors = in_thread(lambda: cb(result=b"x"), delay=0.02, join=False)
    assert cb.wait(2) == b"x"
    assert cb.done
    assert errors == []


def test_evented_error() -> None:
    cb: EventedCallback[bytes] = EventedCallback()
    boom = OSError("boom")
    _, errors = in_thread(lambda: cb(error=boom))
    assert errors == []
    with pytest.raises(OSError) as info:
        cb.wait(2)
    assert info.value is boom


def test_evented_timeout() -> None:
    cb: EventedCallback[int] = EventedCallback()
    started = time.monotonic()
    with pytest.raises(DualioTimeout):
        cb.wait(0.1)
    elapsed = time.monotonic() - started
    assert 0.09 <= elapsed < 1.5
    assert not cb.done
    with pytest.raises(TimeoutError):  # DualioTimeout is a TimeoutError too
        cb.wait(0)
    # it can still complete afterwards
    cb(result=3)
    assert cb.wait(0) == 3


def test_evented_first_completion_wins() -> None:
    cb: EventedCallback[int] = EventedCallback()

    def many() -> None:
        cb(result=1)
        cb(error=ValueError("late"))
        cb()
        cb(result=2)

    _, errors = in_thread(many)
    assert errors == []
    assert cb.wait(1) == 1


def test_evented_fifty_threads_exactly_one_wins() -> None:
    built: list[int] = []
    lock = threading.Lock()

    def build(**kwargs: Any) -> int:
        with lock:
            built.append(kwargs["result"])
        return int(kwargs["result"])

    cb: EventedCallback[int] = EventedCallback(build=build)
    barrier = threading.Barrier(50)
    errors: list[BaseException] = []

    def racer(i: int) -> None:
        try:
            barrier.wait(5)
            cb(result=i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=racer, args=(i,), daemon=True) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert errors == []
    assert built == [cb.wait(1)]


def test_evented_wait_from_another_thread() -> None:
    cb: EventedCallback[str] = EventedCallback()
    got: list[object] = []
    waiter, errors = in_thread(lambda: got.append(cb.wait(5)), join=False)
    time.sleep(0.05)
    assert waiter.is_alive() and got == []
    cb(result="done")
    waiter.join(5)
    assert not waiter.is_alive()
    assert errors == []
    assert got == ["done"]


def test_evented_build_failures_reach_the_waiter() -> None:
    cb: EventedCallback[int] = EventedCallback(build=lambda **kw: 1 // 0)
    _, errors = in_thread(lambda: cb(result=1))
    assert errors == []
    with pytest.raises(ZeroDivisionError):
        cb.wait(2)

    cb2: EventedCallback[int] = EventedCallback()
    _, errors = in_thread(lambda: cb2(other=1))
    assert errors == []
    with pytest.raises(TypeError):
        cb2.wait(2)


# -- emulate_async ------------------------------------------------------------------


def _combine(a: int, b: str, *, c: float = 0.5, d: str = "d") -> tuple[int, str, float, str, int]:
    """Docstring of _combine."""
    return a, b, c, d, threading.get_ident()


@pytest.mark.anyio
async def test_emulate_passes_positional_and_keyword_arguments(anyio_backend: str) -> None:
    g = emulate_async(_combine)
    with anyio.fail_after(5):
        a, b, c, d, ident = await g(1, "two", c=3.0)
        assert (a, b, c, d) == (1, "two", 3.0, "d")
        assert ident != threading.get_ident()  # it ran on a worker thread
        assert (await g(4, b="five", d="x"))[:4] == (4, "five", 0.5, "x")


def test_emulate_preserves_metadata() -> None:
    g = emulate_async(_combine)
    assert g.__name__ == "_combine"
    assert g.__doc__ == "Docstring of _combine."
    assert g.__qualname__ == _combine.__qualname__
    assert g.__wrapped__ is _combine  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_emulate_propagates_exceptions(anyio_backend: str) -> None:
    class Special(Exception):
        pass

    def fail(x: int) -> int:
        raise Special(x)

    with anyio.fail_after(5), pytest.raises(Special) as info:
        await emulate_async(fail)(3)
    assert info.value.args == (3,)


def _concurrency_probe() -> tuple[Callable[[], None], list[int]]:
    lock = threading.Lock()
    state = {"now": 0}
    peak: list[int] = [0]

    def blocking_sleep() -> None:
        with lock:
            state["now"] += 1
            peak[0] = max(peak[0], state["now"])
        try:
            time.sleep(0.2)
        finally:
            with lock:
                state["now"] -= 1

    return blocking_sleep, peak


async def _six_at_once(g: Callable[[], Any]) -> float:
    started = time.perf_counter()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            for _ in range(6):
                tg.start_soon(g)
    return time.perf_counter() - started


@pytest.mark.anyio
async def test_emulate_with_an_executor_runs_at_most_its_workers(anyio_backend: str) -> None:
    fn, peak = _concurrency_probe()
    with ThreadPoolExecutor(max_workers=2) as pool:
        elapsed = await _six_at_once(emulate_async(fn, executor=pool))
    assert 0.55 <= elapsed <= 1.5, elapsed
    assert peak[0] == 2


@pytest.mark.anyio
@pytest.mark.parametrize(
    "anyio_backend",
    ["trio", "asyncio"],
)
async def test_emulate_with_a_limiter_runs_at_most_its_tokens(anyio_backend: str) -> None:
    fn, peak = _concurrency_probe()
    limiter = anyio.CapacityLimiter(2)
    elapsed = await _six_at_once(emulate_async(fn, limiter=limiter))
    assert 0.55 <= elapsed <= 1.5, elapsed
    assert peak[0] == 2


@pytest.mark.anyio
async def test_emulate_on_a_shut_down_executor_is_a_usage_error(anyio_backend: str) -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    pool.shutdown()
    g = emulate_async(lambda: 1, executor=pool)
    with anyio.fail_after(5), pytest.raises(UsageError, match="shut down"):
        await g()


@pytest.mark.anyio
async def test_run_blocking_returns_the_result(anyio_backend: str) -> None:
    with anyio.fail_after(5):
        assert await run_blocking(lambda: "r") == "r"
        with ThreadPoolExecutor(max_workers=1) as pool:
            assert await run_blocking(lambda: "p", executor=pool) == "p"


@pytest.mark.anyio
async def test_cancelling_the_await_with_an_executor_returns_promptly(anyio_backend: str) -> None:
    # The docstring: cancelling drops the result; the worker runs on until it returns.
    finished = threading.Event()

    def slow() -> int:
        time.sleep(0.5)
        finished.set()
        return 1

    recorder = LoopErrors(anyio_backend)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            started = time.perf_counter()
            with anyio.move_on_after(0.05) as scope:
                await emulate_async(slow, executor=pool)()
            elapsed = time.perf_counter() - started
            assert scope.cancelled_caught
            assert elapsed < 0.4, elapsed
            assert not finished.is_set()
            await anyio.to_thread.run_sync(finished.wait, 5)
            await anyio.sleep(0.05)  # the dropped completion reaches the loop
        assert finished.is_set()
        assert recorder.calls == []
    finally:
        recorder.restore()


@pytest.mark.anyio
@pytest.mark.parametrize(
    "anyio_backend",
    ["asyncio", "trio"],
)
async def test_cancelling_the_await_on_the_default_workers_returns_promptly(anyio_backend: str) -> None:
    finished = threading.Event()

    def slow() -> int:
        time.sleep(1.0)
        finished.set()
        return 1

    try:
        started = time.perf_counter()
        with anyio.move_on_after(0.05) as scope:
            await emulate_async(slow)()
        elapsed = time.perf_counter() - started
        assert scope.cancelled_caught
        assert elapsed < 0.5, elapsed
    finally:
        # do not leave the worker busy for the next test
        await anyio.to_thread.run_sync(finished.wait, 5)


def test_default_workers() -> None:
    assert default_workers() == min(32, (os.cpu_count() or 1) + 4)


def test_emulate_keeps_the_signature_for_mypy(tmp_path: Path) -> None:
    prelude = textwrap.dedent(
        """\
        from dualio_transports.emulation.adapter import emulate_async


        def f(a: int, *, b: str) -> float:
            return float(a)


        g = emulate_async(f)


        """
    )
    bad = tmp_path / "bad_call.py"
    bad.write_text(prelude + "async def main() -> float:\n    return await g(1, b=2)\n")
    good = tmp_path / "good_call.py"
    good.write_text(
        prelude
        + "async def main() -> float:\n"
        + "    x: float = await g(1, b='two')\n"
        + "    return x\n"
    )
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")
    cmd = [
        sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
        "--no-error-summary", "--show-error-codes", "--config-file", str(config),
        "--cache-dir", str(tmp_path / ".mypy_cache"), bad.name, good.name,
    ]
    env = {**os.environ, "MYPYPATH": os.pathsep.join((str(ROOT), str(ROOT / "build" / "import-names")))}
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    out = proc.stdout + proc.stderr
    bad_lines = [line for line in out.splitlines() if line.startswith(bad.name)]
    good_lines = [line for line in out.splitlines() if line.startswith(good.name)]
    assert good_lines == [], out
    assert any("[arg-type]" in line and '"b"' in line for line in bad_lines), out
    assert proc.returncode == 1, out


# -- ReaderThreadConnection callback mode against the real server ------------------------


@pytest.fixture
def conn(server: ServerProcess) -> Iterator[ReaderThreadConnection]:
    c = ReaderThreadConnection.connect(ConnectOptions(*server.address), deadline(10))
    try:
        yield c
    finally:
        c.close()


def _reader_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "dualio-reader"}


def test_submit_calls_back_with_the_result(conn: ReaderThreadConnection) -> None:
    cb: EventedCallback[bytes] = EventedCallback()
    call = conn.submit(methods.echo(b"x", 0.0), cb)
    assert call.id > 0
    assert cb.wait(10) == b"x"


def _take_all(
    conn: ReaderThreadConnection, call: Any, news: threading.Event, timeout: float = 10
) -> list[str]:
    """What a loop does with an open stream: drive its items' procedure to the end,
    waiting for news where it awaits."""
    got: list[str] = []
    steps = conn.stream_items(call, ItemDeadlines(deadline(timeout), timeout))
    now: float | None = None  # the first step starts the procedure
    while True:
        news.clear()  # before the step looks: news that comes after it is not missed
        try:
            effect = conn.step(steps, None, now)
        except StopIteration:
            return got
        if type(effect) is procedure.Item:
            got.append(methods.words(1, 0.0).decode_item(effect.payload))
        elif type(effect) is procedure.Await:
            news.wait(max(effect.wake - time.monotonic(), 0))
        else:
            conn.perform(effect)
        now = time.monotonic()


def test_an_open_stream_tells_of_its_items_and_its_end(conn: ReaderThreadConnection) -> None:
    news = threading.Event()
    call = conn.open_stream(methods.words(5, 0.0), news.set)
    assert _take_all(conn, call, news) == [methods.word_at(i) for i in range(5)]


def test_submit_from_four_threads_is_never_misrouted(conn: ReaderThreadConnection) -> None:
    per_thread = 50
    results: dict[bytes, EventedCallback[bytes]] = {}
    lock = threading.Lock()
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def submitter(t: int) -> None:
        try:
            barrier.wait(5)
            for i in range(per_thread):
                payload = f"t{t}-i{i}".encode()
                cb: EventedCallback[bytes] = EventedCallback()
                with lock:
                    results[payload] = cb
                conn.submit(methods.echo(payload, 0.0), cb)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=submitter, args=(t,), daemon=True) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert len(results) == 200
    misrouted = {p: got for p, cb in results.items() if (got := cb.wait(10)) != p}
    assert misrouted == {}


def test_cancel_fails_the_callback_promptly_and_the_connection_goes_on(
    conn: ReaderThreadConnection,
) -> None:
    cb: EventedCallback[None] = EventedCallback()
    call = conn.submit(methods.sleep(1.0), cb)
    time.sleep(0.05)
    started = time.monotonic()
    conn.cancel(call)
    with pytest.raises(CallCancelled):
        cb.wait(0.5)
    assert time.monotonic() - started < 0.5
    after: EventedCallback[bytes] = EventedCallback()
    conn.submit(methods.echo(b"after", 0.0), after)
    assert after.wait(10) == b"after"
    assert conn.call(methods.echo(b"blocking", 0.0), deadline(10)) == b"blocking"
    # cancelling again, or an id that is done, is harmless
    conn.cancel(call)


def test_close_fails_pending_callbacks_and_joins_the_reader(server: ServerProcess) -> None:
    before = _reader_threads()
    c = ReaderThreadConnection.connect(ConnectOptions(*server.address), deadline(10))
    try:
        pending = [EventedCallback[None]() for _ in range(3)]
        for cb in pending:
            c.submit(methods.sleep(5.0), cb)
        news = threading.Event()
        stream = c.open_stream(methods.words(3, 5.0), news.set)
        ours = _reader_threads() - before
        assert len(ours) == 1
        started = time.monotonic()
    finally:
        c.close()
    assert time.monotonic() - started < 4
    for cb in pending:
        with pytest.raises(ClosedError):
            cb.wait(1)
    assert news.wait(1)
    with pytest.raises(ClosedError):  # after any item that came before the close
        _take_all(c, stream, news, timeout=1)
    give_up_at = time.monotonic() + 2
    while (_reader_threads() & ours) and time.monotonic() < give_up_at:
        time.sleep(0.01)
    assert not (_reader_threads() & ours)
    assert c.closed
    with pytest.raises(ClosedError):
        c.submit(methods.echo(b"late", 0.0), EventedCallback())


def test_an_open_stream_keeps_order_while_blocking_calls_share_the_connection(
    conn: ReaderThreadConnection,
) -> None:
    stop = threading.Event()
    caller_errors: list[BaseException] = []

    def caller() -> None:
        try:
            while not stop.is_set():
                conn.call(methods.echo(b"y", 0.0), deadline(10))
        except BaseException as exc:
            caller_errors.append(exc)

    callers = [threading.Thread(target=caller, daemon=True) for _ in range(3)]
    for t in callers:
        t.start()
    try:
        budget = time.monotonic() + 8
        count = 300
        expected = [methods.word_at(i) for i in range(count)]
        while time.monotonic() < budget:
            news = threading.Event()
            call = conn.open_stream(methods.words(count, 0.0), news.set)
            assert _take_all(conn, call, news) == expected
    finally:
        stop.set()
        for t in callers:
            t.join(10)
    assert caller_errors == []


def test_a_connect_given_up_is_closed_at_once_without_a_goodbye(server: ServerProcess) -> None:
    """A connect made on a worker for an awaiter that gave up is closed where it is handed
    over: by ``abandon`` if the connect finished first (at once: no goodbye to write,
    nothing to wait for, no thread), by the worker if it finishes second."""
    from dualio_transports.dualio_protocol.frames import FrameKind
    from dualio_transports.emulation.emulated_connection import _WorkerConnect
    from tests.scripted_peer import ScriptedPeer, drain

    with ScriptedPeer(drain()) as peer:
        first = _WorkerConnect()
        conn = first.connect(ConnectOptions(*peer.address), deadline(10))
        threads = set(threading.enumerate())
        started = time.monotonic()
        first.abandon()
        assert time.monotonic() - started < 0.5
        assert not set(threading.enumerate()) - threads  # none started (others may end)
        assert conn.closed
        with pytest.raises(ClosedError):
            conn.call(methods.echo(b"x", 0.0), deadline(5.0))
    assert peer.kinds == [FrameKind.HELLO]  # hung up without a CLOSE

    second = _WorkerConnect()
    second.abandon()
    with pytest.raises(CallCancelled, match="abandoned"):
        second.connect(ConnectOptions(*server.address), deadline(10))
