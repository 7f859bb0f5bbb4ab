"""The emulated async transport: the blocking transport driven from a loop.

Three strategies, chosen per connection:

``"pool"``
    The whole round trip runs on a pooled worker (``emulate_async``). At most W
    calls are in flight; the rest queue for a worker.
``"thread"``
    Every call gets a fresh thread: no W, but one thread per call in flight.
``"callback"``
    A pooled worker only writes the request; the transport's reader thread
    completes an :class:`AwaitableCallback` when the answer arrives. W bounds
    only the writes.

A call's deadline covers its time queued for a worker as well: the loop keeps the
same deadline the worker's blocking call does, on the loop's clock. When the
awaiting task is cancelled or times out, the blocking call is abandoned through
its :class:`CallHandle`: the worker returns at once with CallCancelled (its
result is dropped) and the late answer is discarded by request id.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Literal, TypeVar

import anyio

from dualio_transports import async_driver
from dualio_transports.emulation.adapter import run_blocking, shut_down
from dualio_transports.emulation.call_handle import CallHandle
from dualio_transports.emulation.callbacks import AwaitableCallback
from dualio_transports.emulation.reader_thread_connection import ReaderThreadConnection
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire import failures, procedure
from dualio_transports.wire.deadline import NO_DEADLINE, ItemDeadlines, on_clock
from dualio_transports.wire.errors import CallCancelled, DualioError, DualioTimeout
from dualio_transports.wire.request import Request, StreamRequest

T = TypeVar("T")
R = TypeVar("R")
Strategy = Literal["pool", "thread", "callback"]
STRATEGIES: tuple[Strategy, ...] = ("pool", "thread", "callback")


class _StreamNews:
    """Tells the loop that a stream has news (an item, its end), from the reader thread:
    the items themselves stay in the blocking connection's call table, bounded by its
    ``STREAM_BACKLOG`` as every stream's are, so no thread ever waits for the consumer."""

    __slots__ = ("_event", "_loop", "_told")

    def __init__(self, loop: LoopHandle) -> None:
        self._loop = loop
        self._event: anyio.Event | None = None
        self._told = False  # a wake-up is on its way to the loop

    def tell(self) -> None:
        if not self._told:
            self._told = True
            self._loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        self._told = False
        if self._event is not None:
            self._event.set()

    def arm(self) -> anyio.Event:
        """A fresh event to wait on; take items after this and before waiting."""
        event = self._event = anyio.Event()
        return event


class _WorkerConnect:
    """A connect made on a worker, handed to an awaiter that may have given up: then the
    worker, or the awaiter, whichever comes second, closes it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._abandoned = False
        self._conn: ReaderThreadConnection | None = None

    def connect(self, options: ConnectOptions, until: float) -> ReaderThreadConnection:
        conn = ReaderThreadConnection.connect(options, until)
        with self._lock:
            if not self._abandoned:
                self._conn = conn
                return conn
        conn.close()
        raise CallCancelled("the connect was abandoned")

    def abandon(self) -> None:
        with self._lock:
            self._abandoned = True
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.abort()


def check_emulation(strategy: object, max_workers: object, executor: object) -> None:
    """The emulation's arguments, checked once for every caller (``AsyncClient`` too)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"emulation must be one of {STRATEGIES}, not {strategy!r}")
    if max_workers is not None and (
        isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1
    ):
        raise ValueError(f"max_workers must be an int >= 1, got {max_workers!r}")
    if max_workers is not None and executor is not None:
        raise ValueError("give max_workers or executor, not both")


class _Expiry:
    """A pooled call's timeout: cancels the executor's future, and says it did."""

    __slots__ = ("expired", "future")

    def __init__(self, future: asyncio.Future[Any]) -> None:
        self.future = future
        self.expired = False

    def __call__(self) -> None:
        self.expired = True
        self.future.cancel()


def _outcome_dropped(future: asyncio.Future[Any]) -> None:
    """The outcome of a worker whose caller left, taken so that nobody is told it was lost."""
    if not future.cancelled():
        future.exception()


class EmulatedConnection:
    def __init__(
        self,
        conn: ReaderThreadConnection,
        loop: LoopHandle,
        strategy: Strategy,
        executor: Executor | None,
        limiter: anyio.CapacityLimiter | None,
        owned_executor: ThreadPoolExecutor | None,
    ) -> None:
        self._conn = conn
        self.loop = loop
        self.strategy = strategy
        self._executor = executor
        self._limiter = limiter
        self._owned_executor = owned_executor
        self._threads: set[threading.Thread] = set()
        self._threads_lock = threading.Lock()
        self._closed = False
        # The pool on asyncio without a limiter: run_in_executor and a timer, nothing else.
        self._plain_pool: asyncio.AbstractEventLoop | None = None
        if strategy == "pool" and limiter is None and loop.backend == "asyncio":
            assert isinstance(loop.loop, asyncio.AbstractEventLoop)
            self._plain_pool = loop.loop

    @classmethod
    async def connect(
        cls,
        options: ConnectOptions,
        until: float,
        *,
        strategy: Strategy = "pool",
        max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> EmulatedConnection:
        check_emulation(strategy, max_workers, executor)
        loop = LoopHandle.current()
        owned: ThreadPoolExecutor | None = None
        limiter: anyio.CapacityLimiter | None = None
        if max_workers is not None:
            if loop.backend == "asyncio":
                owned = executor = ThreadPoolExecutor(max_workers, thread_name_prefix="dualio-pool")
            else:
                limiter = anyio.CapacityLimiter(max_workers)
        handoff = _WorkerConnect()
        try:
            conn = await run_blocking(
                functools.partial(handoff.connect, options, until), executor=executor, limiter=limiter
            )
        except BaseException:
            handoff.abandon()  # a connect the awaiter gave up on is closed, never leaked
            if owned is not None:
                owned.shutdown(wait=False)
            raise
        return cls(conn, loop, strategy, executor, limiter, owned)

    # -- running blocking work --------------------------------------------------

    async def _worker(self, fn: Callable[[], R]) -> R:
        return await run_blocking(fn, executor=self._executor, limiter=self._limiter)

    async def _fresh_thread(self, fn: Callable[[], R]) -> R:
        done: AwaitableCallback[R] = AwaitableCallback()

        def run() -> None:
            try:
                done.callback(result=fn())
            except BaseException as exc:
                done.callback(error=exc)

        self._start_thread(run)
        return await done.wait()

    def _start_thread(self, run: Callable[[], None]) -> None:
        """Start a thread that ``aclose`` will join."""

        def tracked() -> None:
            try:
                run()
            finally:
                with self._threads_lock:
                    self._threads.discard(thread)

        thread = threading.Thread(target=tracked, name="dualio-call", daemon=True)
        with self._threads_lock:
            self._threads.add(thread)
        try:
            thread.start()
        except RuntimeError as exc:
            with self._threads_lock:
                self._threads.discard(thread)
                running = len(self._threads)
            raise DualioError(f"cannot start another thread ({running} running): {exc}") from exc

    async def _run(self, fn: Callable[[], R]) -> R:
        if self.strategy == "thread":
            return await self._fresh_thread(fn)
        return await self._worker(fn)

    # -- calls ----------------------------------------------------------------------

    async def call(self, request: Request[T], until: float, sent: list[int] | None = None) -> T:
        handle = CallHandle()
        if self.strategy == "callback":
            done: AwaitableCallback[T] = AwaitableCallback()
            submit = functools.partial(self._conn.submit, request, done.callback, handle, until, sent)
            return await self._await(
                self._write_then_wait(submit, done), until, handle.cancel, handle.deadline_passed,
            )
        work = functools.partial(self._conn.call, request, until, sent, handle)
        if self._plain_pool is not None:
            return await self._in_executor(self._plain_pool, work, until, handle)
        return await self._await(self._run(work), until, handle.cancel, handle.deadline_passed)

    async def _in_executor(
        self, loop: asyncio.AbstractEventLoop, work: Callable[[], R], until: float, handle: CallHandle,
    ) -> R:
        """``_await(_worker(work))`` on asyncio for the pool without a limiter: the deadline
        is a timer that cancels run_in_executor's future, with no Timeout object and no task
        cancel bookkeeping (nothing cancels the task). What the call adds to
        ``asyncio.to_thread`` is then that timer."""
        try:
            future = loop.run_in_executor(self._executor, work)
        except RuntimeError as exc:
            refused = shut_down(exc)
            if refused is None:
                raise
            raise refused from exc
        expiry = timer = None
        if until != NO_DEADLINE:
            expiry = _Expiry(future)
            timer = loop.call_at(on_clock(until, loop.time), expiry)
        try:
            return await future
        except asyncio.CancelledError:
            handle.cancel()
            if expiry is not None and expiry.expired:
                current = asyncio.current_task()
                if current is None or not current.cancelling():  # the timer's, not the caller's
                    raise handle.deadline_passed() from None
            raise
        except BaseException:  # closed half-way: nobody awaits the worker's outcome
            handle.cancel()
            future.add_done_callback(_outcome_dropped)
            raise
        finally:
            if timer is not None:
                timer.cancel()

    async def _write_then_wait(self, submit: Callable[[], object], done: AwaitableCallback[T]) -> T:
        await self._worker(submit)
        return await done.wait()

    async def _await(
        self, work: Awaitable[R], until: float, abandon: Callable[[], None],
        expired: Callable[[], DualioError] = failures.call_timeout,
    ) -> R:
        """``work``, given up (``abandon``) if it has not ended by ``until``: the deadline
        the worker's blocking call keeps too, here for its time queued for a worker."""
        try:
            if self.loop.backend == "asyncio":  # asyncio's own timer costs a fraction of a scope's
                loop = asyncio.get_running_loop()
                async with asyncio.timeout_at(None if until == NO_DEADLINE else on_clock(until, loop.time)):
                    return await work
            with anyio.CancelScope(deadline=on_clock(until, anyio.current_time)):
                return await work
            abandon()  # only the scope's deadline ends the block without a return or a raise
            raise expired()
        except DualioTimeout:
            abandon()
            raise
        except TimeoutError:
            abandon()
            raise expired() from None
        except BaseException:
            abandon()
            raise

    async def stream(
        self, request: StreamRequest[T], until: float, item_timeout: float | None,
        sent: list[int] | None = None,
    ) -> AsyncGenerator[T, None]:
        """A worker (a fresh thread with ``"thread"``) writes the request, as for a call;
        the connection's reader thread then reads the items, and the loop takes them
        from the call table: no thread is held for the stream's life, so a call made
        inside the stream's loop always finds a worker."""
        news = _StreamNews(self.loop)
        handle = CallHandle()
        deadlines = ItemDeadlines(until, item_timeout)

        def expired() -> DualioError:
            return failures.item_timeout(item_timeout)

        start = functools.partial(self._conn.open_stream, request, news.tell, handle, deadlines, sent)
        call = await self._await(self._run(start), until, handle.cancel, expired)
        conn = self._conn

        async def perform(effect: procedure.Effect) -> None:
            if type(effect) is procedure.Await:  # the reader thread reads: wait for its news
                event = news.arm()  # no await since the step found nothing: no news is missed
                with anyio.CancelScope(deadline=on_clock(effect.wake, anyio.current_time)):
                    await event.wait()
            else:
                conn.perform(effect)

        steps = conn.stream_items(call, deadlines)
        items = async_driver.stream_items(steps, perform, request.decode_item, conn.step)
        try:
            async for item in items:
                yield item
        finally:
            await items.aclose()  # now, not when collected: the server hears of it at once

    # -- closing --------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed or self._conn.closed

    def has_pending_input(self) -> bool:
        return self._conn.has_pending_input()

    @property
    def dropped(self) -> int:
        return self._conn.dropped

    @property
    def failure(self) -> DualioError | None:
        return self._conn.failure

    async def aclose(self) -> None:
        """Close the connection, then wait for every thread this connection started."""
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._close_and_join)

    def _close_and_join(self) -> None:
        self._conn.close()
        with self._threads_lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join()
        if self._owned_executor is not None:
            self._owned_executor.shutdown(wait=True)


