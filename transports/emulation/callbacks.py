"""Completion callbacks that any thread may call, and what waits on them.

The blocking transport completes work by calling ``callback(result=value)`` or
``callback(error=exception)``. :class:`AwaitableCallback` lets a coroutine await
such a callback; :class:`EventedCallback` lets a thread wait on one. Both follow
the same rules:

* the first completion wins; later ones are ignored;
* the callback never raises into the thread that calls it;
* if turning the callback's arguments into a result fails, the waiter gets
  that failure instead of waiting forever.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import anyio

from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire.errors import DualioTimeout

T = TypeVar("T")


def _default_result(**kwargs: Any) -> Any:
    if "result" not in kwargs:
        raise TypeError(f"completion callback called without result= (got {sorted(kwargs)})")
    return kwargs["result"]


class _Outcome(Generic[T]):
    __slots__ = ("error", "value")

    def __init__(self) -> None:
        self.value: T | None = None
        self.error: BaseException | None = None

    def unwrap(self) -> T:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


def _build(outcome: _Outcome[T], build: Callable[..., T], kwargs: dict[str, Any]) -> None:
    error = kwargs.pop("error", None)
    if error is not None:
        outcome.error = error
        return
    try:
        outcome.value = build(**kwargs)
    except Exception as exc:
        outcome.error = exc


class AwaitableCallback(Generic[T]):
    """A callback for threads, an awaitable for the loop it was made on.

    Make it on the loop thread, hand ``callback`` to any thread, then
    ``await cb.wait()``. Completion goes through the loop's thread-safe
    scheduling (``call_soon_threadsafe`` on asyncio, the trio token's
    ``run_sync_soon`` on trio). If the awaiting task was cancelled the
    completion is dropped quietly; if the loop has closed, the calling thread is
    not troubled either.
    """

    __slots__ = ("_build", "_delivered", "_done", "_done_lock", "_future", "_loop", "_outcome")

    def __init__(self, build: Callable[..., T] = _default_result) -> None:
        self._loop = LoopHandle.current()
        self._outcome: _Outcome[T] = _Outcome()
        self._build = build
        self._done = False
        self._done_lock = threading.Lock()
        self._delivered = False
        self._future: asyncio.Future[None] | anyio.Event = (
            # a bare future: the cheapest wake-up asyncio has
            asyncio.get_running_loop().create_future() if self._loop.backend == "asyncio"
            else anyio.Event()
        )

    def callback(self, **kwargs: Any) -> None:
        """Complete the awaitable; callable from any thread, any number of times."""
        with self._done_lock:
            if self._done:
                return
            self._done = True
        _build(self._outcome, self._build, kwargs)
        self._loop.call_soon_threadsafe(self._deliver)

    __call__ = callback

    def _deliver(self) -> None:
        """On the loop thread."""
        self._delivered = True
        future = self._future
        if isinstance(future, asyncio.Future):
            if not future.done():  # the awaiting task may be cancelled, and its future with it
                future.set_result(None)
        else:
            future.set()

    @property
    def done(self) -> bool:
        """The completion has reached the loop."""
        return self._delivered

    async def wait(self) -> T:
        if isinstance(self._future, asyncio.Future):
            await self._future
        else:
            await self._future.wait()
        return self._outcome.unwrap()

    def __await__(self) -> Any:
        return self.wait().__await__()


class EventedCallback(Generic[T]):
    """The same callback protocol for a waiting thread: ``cb.wait(timeout)``."""

    __slots__ = ("_build", "_done_lock", "_event", "_outcome", "_taken")

    def __init__(self, build: Callable[..., T] = _default_result) -> None:
        self._event = threading.Event()
        self._outcome: _Outcome[T] = _Outcome()
        self._build = build
        self._taken = False
        self._done_lock = threading.Lock()

    def callback(self, **kwargs: Any) -> None:
        with self._done_lock:
            if self._taken:
                return
            self._taken = True
        _build(self._outcome, self._build, kwargs)
        self._event.set()

    __call__ = callback

    @property
    def done(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> T:
        if not self._event.wait(timeout):
            raise DualioTimeout(f"no completion within {timeout}s")
        return self._outcome.unwrap()
