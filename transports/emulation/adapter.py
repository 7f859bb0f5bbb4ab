"""``emulate_async``: a blocking callable turned into an awaitable one.

On asyncio the call runs through ``loop.run_in_executor`` on the executor you
give (default: the loop's default executor, ``min(32, cpu + 4)`` workers), and
also under ``limiter`` if you give one. On
trio it runs through ``anyio.to_thread.run_sync`` under a ``CapacityLimiter``
(default: the same ``min(32, cpu + 4)`` tokens), or on your executor if you give
one. Either way at most W calls run at once: that bound is the cost the lab
measures against native coroutines.

Cancelling the await does not stop the thread (Python cannot): the call runs
on, its result is dropped, and its worker stays busy until it returns.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future

import anyio
from anyio.lowlevel import RunVar
from typing_extensions import ParamSpec, TypeVar

from dualio_transports.emulation.callbacks import AwaitableCallback
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire.errors import UsageError

P = ParamSpec("P")
R = TypeVar("R")


def default_workers() -> int:
    """Python's default executor size: ``min(32, cpu + 4)``."""
    return min(32, (os.cpu_count() or 1) + 4)


_default_limiter: RunVar[anyio.CapacityLimiter] = RunVar("dualio_default_limiter")


def trio_default_limiter() -> anyio.CapacityLimiter:
    """The default limiter on trio: one per run, like asyncio's default executor per loop."""
    try:
        return _default_limiter.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(default_workers())
        _default_limiter.set(limiter)
        return limiter


async def run_blocking(
    call: Callable[[], R],
    *,
    executor: Executor | None = None,
    limiter: anyio.CapacityLimiter | None = None,
) -> R:
    """Run ``call`` on a worker thread and await its result."""
    loop = LoopHandle.current()
    try:
        if loop.backend == "asyncio":
            assert isinstance(loop.loop, asyncio.AbstractEventLoop)
            if limiter is None:
                return await loop.loop.run_in_executor(executor, call)
            async with limiter:
                return await loop.loop.run_in_executor(executor, call)
        if executor is None:
            return await anyio.to_thread.run_sync(
                call, limiter=limiter or trio_default_limiter(), abandon_on_cancel=True
            )
        done: AwaitableCallback[R] = AwaitableCallback()
        future = executor.submit(call)
        future.add_done_callback(functools.partial(_complete_from_future, done))
        return await done.wait()
    except RuntimeError as exc:
        refused = shut_down(exc)
        if refused is None:
            raise
        raise refused from exc


def shut_down(exc: RuntimeError) -> UsageError | None:
    """What to raise for ``exc`` from submitting work to an executor: UsageError if the
    executor refused it for having been shut down, else None (``exc`` stands)."""
    return UsageError(f"the executor has been shut down: {exc}") if "shutdown" in str(exc) else None


def _complete_from_future(done: AwaitableCallback[R], future: Future[R]) -> None:
    if future.cancelled():
        done.callback(error=asyncio.CancelledError())
    elif (error := future.exception()) is not None:
        done.callback(error=error)
    else:
        done.callback(result=future.result())


def emulate_async(
    fn: Callable[P, R],
    *,
    executor: Executor | None = None,
    limiter: anyio.CapacityLimiter | None = None,
) -> Callable[P, Awaitable[R]]:
    """Wrap the blocking ``fn`` in a coroutine function with the same signature."""

    @functools.wraps(fn)
    async def emulated(*args: P.args, **kwargs: P.kwargs) -> R:
        return await run_blocking(
            functools.partial(fn, *args, **kwargs), executor=executor, limiter=limiter
        )

    return emulated
