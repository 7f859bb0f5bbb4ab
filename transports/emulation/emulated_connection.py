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

A call's ``timeout`` covers its time queued for a worker as well. When the
awaiting task is cancelled or times out, the blocking call is abandoned through
its :class:`CallHandle`: the worker returns at once with CallCancelled (its
result is dropped) and the late answer is discarded by request id.
"""

from __future__ import annotations

import asyncio
import functools
import math
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from concurrent import futures
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, Literal, TypeVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from transports.blocking.connection import BlockingConnection, CallHandle
from transports.emulation.adapter import run_blocking, trio_default_limiter
from transports.emulation.callbacks import AwaitableCallback
from transports.running_loop import LoopHandle
from transports.wire import calls, methods
from transports.wire.connect_options import ConnectOptions
from transports.wire.errors import CallCancelled, DualioError, DualioTimeout, UsageError

T = TypeVar("T")
R = TypeVar("R")
Strategy = Literal["pool", "thread", "callback"]
STRATEGIES: tuple[Strategy, ...] = ("pool", "thread", "callback")


BRIDGE_ITEMS = 256
"""Stream items a bridge holds for a slow consumer; the pushing thread then waits,
so the blocking transport stops reading, as it does for a slow blocking consumer."""
_LOOK_UP = 0.05  # a waiting pusher checks this often whether the consumer has left


class _StreamBridge:
    """Stream items pushed from any thread, received on the loop, at most BRIDGE_ITEMS
    at a time."""

    def __init__(self, loop: LoopHandle) -> None:
        self._loop = loop
        self.send: MemoryObjectSendStream[Any]
        self.receive: MemoryObjectReceiveStream[Any]
        self.send, self.receive = anyio.create_memory_object_stream[Any](math.inf)
        self._room = threading.Semaphore(BRIDGE_ITEMS)
        self.left = threading.Event()  # the consumer is gone: drop items, never wait
        self.error: BaseException | None = None
        self.finished = False

    def item(self, value: Any) -> None:
        while not self.left.is_set():
            if self._room.acquire(timeout=_LOOK_UP):
                self._loop.call_soon_threadsafe(functools.partial(self._put, value))
                return

    def taken(self) -> None:
        """The consumer took an item: room for one more."""
        self._room.release()

    def _put(self, value: Any) -> None:
        try:
            self.send.send_nowait(value)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the consumer left

    def callback(self, **kwargs: Any) -> None:
        self._loop.call_soon_threadsafe(functools.partial(self._end, kwargs.get("error")))

    def _end(self, error: BaseException | None) -> None:
        self.error = error
        self.finished = True
        self.send.close()


class _Handoff:
    """A connect made on a worker, handed to an awaiter that may have given up: then the
    worker, or the awaiter, whichever comes second, closes it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._abandoned = False
        self._conn: BlockingConnection | None = None

    def connect(self, options: ConnectOptions) -> BlockingConnection:
        conn = BlockingConnection.connect(options)
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


class EmulatedConnection:
    def __init__(
        self,
        conn: BlockingConnection,
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
        self._pool_pumps: set[asyncio.Future[None]] = set()
        self._executor_pumps: set[Future[None]] = set()
        self._bridges: set[_StreamBridge] = set()

    @classmethod
    async def connect(
        cls,
        options: ConnectOptions,
        *,
        strategy: Strategy = "pool",
        max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> EmulatedConnection:
        if strategy not in STRATEGIES:
            raise ValueError(f"emulation must be one of {STRATEGIES}, not {strategy!r}")
        if max_workers is not None and executor is not None:
            raise ValueError("give max_workers or executor, not both")
        if max_workers is not None and (isinstance(max_workers, bool) or max_workers < 1):
            raise ValueError(f"max_workers must be >= 1, got {max_workers!r}")
        loop = LoopHandle.current()
        owned: ThreadPoolExecutor | None = None
        limiter: anyio.CapacityLimiter | None = None
        if max_workers is not None:
            if loop.backend == "asyncio":
                owned = executor = ThreadPoolExecutor(max_workers, thread_name_prefix="dualio-pool")
            else:
                limiter = anyio.CapacityLimiter(max_workers)
        handoff = _Handoff()
        try:
            conn = await run_blocking(
                functools.partial(handoff.connect, options), executor=executor, limiter=limiter
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

    async def call(self, op: methods.Call[T], timeout: float | None, sent: list[int] | None = None) -> T:
        handle = CallHandle()
        if self.strategy == "callback":
            done: AwaitableCallback[T] = AwaitableCallback()
            submit = functools.partial(self._conn.submit, op, done.callback, handle, timeout, sent)
            return await self._await(self._write_then_wait(submit, done), timeout, handle.cancel)
        work = functools.partial(self._conn.call, op, timeout, handle, sent)
        return await self._await(self._run(work), timeout, handle.cancel)

    async def _write_then_wait(self, submit: Callable[[], object], done: AwaitableCallback[T]) -> T:
        await self._worker(submit)
        return await done.wait()

    async def ping(self, timeout: float | None, sent: list[int] | None = None) -> float:
        handle = CallHandle()
        work = functools.partial(self._conn.ping, timeout, handle, sent)
        return await self._await(self._run(work), timeout, handle.cancel)

    async def _await(
        self, work: Awaitable[R], timeout: float | None, abandon: Callable[[], None]
    ) -> R:
        try:
            if self.loop.backend == "asyncio":  # asyncio's own timer costs a fraction of a scope's
                async with asyncio.timeout(timeout):
                    return await work
            with anyio.fail_after(timeout):
                return await work
        except DualioTimeout:
            abandon()
            raise
        except TimeoutError:
            abandon()
            raise calls.call_timeout() from None
        except BaseException:
            abandon()
            raise

    async def stream(
        self, op: methods.StreamCall[T], timeout: float | None, sent: list[int] | None = None
    ) -> AsyncGenerator[T, None]:
        bridge = _StreamBridge(self.loop)
        abandon: Callable[[], None]
        handle = CallHandle()
        abandon = handle.cancel
        if self.strategy == "callback":
            submit = functools.partial(
                self._conn.submit_stream, op, bridge.item, bridge.callback, handle, timeout, sent
            )
            try:
                with anyio.fail_after(timeout):  # the time queued for a worker counts
                    await self._worker(submit)
            except TimeoutError:
                abandon()
                raise calls.call_timeout() from None
            except BaseException:
                abandon()
                raise
        else:

            def pump() -> None:
                try:
                    for value in self._conn.stream(op, timeout, handle, sent):
                        bridge.item(value)
                except BaseException as exc:
                    bridge.callback(error=exc)
                else:
                    bridge.callback(result=None)

            try:
                with anyio.fail_after(timeout):  # the time queued for a worker counts
                    await self._start_pump(pump)
            except TimeoutError:
                abandon()
                raise calls.call_timeout() from None
        self._bridges.add(bridge)
        try:
            async for value in self._drain(bridge, timeout):
                yield value
        finally:
            bridge.left.set()
            self._bridges.discard(bridge)
            if not bridge.finished:
                abandon()
            bridge.receive.close()

    async def _start_pump(self, pump: Callable[[], None]) -> None:
        """Run a stream's pump beside the consumer, holding a worker as a call would."""
        if self.strategy == "thread":
            self._start_thread(pump)
        elif self.loop.backend == "asyncio":
            assert isinstance(self.loop.loop, asyncio.AbstractEventLoop)
            try:
                future = self.loop.loop.run_in_executor(self._executor, pump)
            except RuntimeError as exc:
                raise UsageError(f"the executor has been shut down: {exc}") from exc
            self._pool_pumps.add(future)
            future.add_done_callback(self._pool_pumps.discard)
        elif self._executor is not None:
            try:
                submitted = self._executor.submit(pump)
                self._executor_pumps.add(submitted)
                submitted.add_done_callback(self._executor_pumps.discard)
            except RuntimeError as exc:
                raise UsageError(f"the executor has been shut down: {exc}") from exc
        else:
            limiter = self._limiter or trio_default_limiter()
            borrower = object()
            await limiter.acquire_on_behalf_of(borrower)
            release = functools.partial(limiter.release_on_behalf_of, borrower)

            def pump_then_release() -> None:
                try:
                    pump()
                finally:
                    self.loop.call_soon_threadsafe(release)

            try:
                self._start_thread(pump_then_release)
            except BaseException:
                release()
                raise

    @staticmethod
    async def _drain(bridge: _StreamBridge, timeout: float | None) -> AsyncIterator[Any]:
        while True:
            try:
                with anyio.fail_after(timeout):
                    value = await bridge.receive.receive()
            except anyio.EndOfStream:
                if bridge.error is not None:
                    raise bridge.error from None
                return
            except TimeoutError:
                raise calls.item_timeout(timeout) from None
            bridge.taken()
            yield value

    # -- closing --------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed or self._conn.closed

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
        for bridge in self._bridges:  # a pusher waiting for room must not hold up the join
            bridge.left.set()
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._close_and_join)
            if self._pool_pumps:
                await asyncio.gather(*self._pool_pumps, return_exceptions=True)

    def _close_and_join(self) -> None:
        self._conn.close()
        with self._threads_lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join()
        futures.wait(self._executor_pumps)
        if self._owned_executor is not None:
            self._owned_executor.shutdown(wait=True)


