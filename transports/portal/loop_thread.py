"""An asyncio event loop on a thread of its own, which other threads hand coroutines to.

Any thread submits a coroutine, which the loop runs as a task, and waits on a lock the
task's end releases (a :class:`Handoff`); a wait that ends first (its time is up, or
the waiter is interrupted) cancels the task. Work that needs no coroutine is handed
over as a callback (``call_soon``), which costs no task either. ``stop``
closes the connections living on the loop (``hosted``), runs a last coroutine, cancels
what is left, stops the loop and joins the thread, within a bounded time.

A thread must never wait here for work of the loop it is running on: the work would
wait for the very thread that waits for it. :meth:`LoopThread.on_loop_thread` lets a
caller refuse that first.

:func:`shared` is the one loop thread of a process that every portal client uses:
started on first use (again in a forked child, which never touches its parent's), and
stopped when the interpreter exits, within ``EXIT_JOIN``.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import selectors
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar

from dualio_transports import forks
from dualio_transports.wire.errors import DualioError

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
log = logging.getLogger("dualio.transport")

JOIN_TIMEOUT = 5.0
"""How long ``stop`` waits for the thread to end."""
EXIT_JOIN = 1.0
"""How long the interpreter's exit waits for the shared loop thread to end."""
_CANCEL_GRACE = 2.0  # tasks left when the loop stops get this long to finish being cancelled


class Hosted(Protocol):
    """A connection living on the loop."""

    async def aclose(self) -> None: ...


class Waitable(Protocol[T_co]):
    """Work handed to the loop that a thread waits for: the loop releases ``ended`` once
    it has ended; ``cancel`` runs on the loop when the waiter leaves first."""

    @property
    def ended(self) -> threading.Lock: ...

    def cancel(self) -> None: ...

    def result(self) -> T_co: ...


class Handoff(Generic[T]):
    """A coroutine run as a task on the loop for a thread that waits for it: the task's
    end releases ``ended`` (no concurrent future: no condition, no chained callbacks)."""

    __slots__ = ("_coro", "ended", "task")

    def __init__(self, coro: Coroutine[Any, Any, T]) -> None:
        self._coro: Coroutine[Any, Any, T] | None = coro
        self.task: asyncio.Task[T] | None = None
        self.ended = threading.Lock()
        self.ended.acquire()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the loop."""
        assert self._coro is not None
        self.task = loop.create_task(self._coro)
        self._coro = None
        self.task.add_done_callback(self._release)

    def _release(self, task: asyncio.Task[T]) -> None:
        self.ended.release()

    def cancel(self) -> None:
        """On the loop: the waiter left."""
        if self.task is not None:
            self.task.cancel()

    def result(self) -> T:
        """Once ``ended`` is released: the task's result or exception."""
        assert self.task is not None
        return self.task.result()


class LoopThread:
    """One ``asyncio`` selector event loop running on one daemon thread."""

    def __init__(self, name: str = "dualio-portal") -> None:
        self._selector = selectors.DefaultSelector()
        self.loop = asyncio.SelectorEventLoop(self._selector)
        self.born = forks.generation  # the process generation the thread runs in
        self._lock = threading.Lock()  # orders submissions before the loop's last coroutine
        self._open = True
        self._inbox: list[tuple[Callable[..., object], tuple[Any, ...]]] = []  # see call_soon
        self._waking = False  # a drain of the inbox is on the loop's way
        self.hosted: set[Hosted] = set()
        """What lives on the loop and is closed when it stops (only the loop thread changes it)."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        try:
            self._thread.start()
        except BaseException:
            self.loop.close()
            raise
        self.ident = self._thread.ident

    def _run(self) -> None:
        try:
            self.loop.run_forever()
        finally:
            self.loop.close()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    @property
    def open(self) -> bool:
        """Whether it still takes work (not stopping, not inherited across a fork)."""
        return self._open and self.born == forks.generation

    def on_loop_thread(self) -> bool:
        return threading.get_ident() == self.ident

    def submit(self, coro: Coroutine[Any, Any, T]) -> Handoff[T] | None:
        """Run ``coro`` on the loop as a task; None (and ``coro`` closed, unrun) once stopping."""
        handoff = Handoff(coro)
        if self.call_soon(handoff.start, self.loop):
            return handoff
        coro.close()
        return None

    def call_soon(self, callback: Callable[..., object], *args: Any) -> bool:
        """Run ``callback(*args)`` on the loop, soon; False (and nothing run) once stopping.

        The callback joins the thread's inbox under the lock, and the loop is woken after
        the lock is released: waking it writes to a socket, which lets go of the GIL, and
        with thousands of threads calling, a lock held across a GIL hand-off would make
        every caller queue for both. One wake-up carries whatever joined the inbox before
        the loop drains it."""
        with self._lock:
            if not self._open:
                return False
            self._inbox.append((callback, args))
            wake, self._waking = not self._waking, True
        if wake:
            try:
                self.loop.call_soon_threadsafe(self._run_queued)
            except RuntimeError:  # closed meanwhile: stop drained the inbox before it
                pass
        return True

    def _run_queued(self) -> None:
        """On the loop: run what the inbox holds."""
        with self._lock:
            self._waking = False
            work, self._inbox = self._inbox, []
        for callback, args in work:
            try:
                callback(*args)
            except Exception:
                log.exception("a callback handed to the portal's event loop failed")

    def wait(self, handoff: Waitable[T], timeout: float | None, expired: Callable[[], DualioError]) -> T:
        """The work's result, or its exception. A wait that ends before the work does
        cancels it: after ``timeout`` seconds (raising ``expired()``), or when the waiting
        thread is interrupted (KeyboardInterrupt). ``asyncio.CancelledError`` when the
        loop cancelled it (``stop``)."""
        try:
            ended = handoff.ended.acquire(timeout=-1 if timeout is None else timeout)
        except BaseException:
            self.call_soon(handoff.cancel)
            raise
        if not ended and not handoff.ended.acquire(blocking=False):  # not even just now
            self.call_soon(handoff.cancel)
            raise expired()
        return handoff.result()

    def stop(
        self, last: Callable[[], Awaitable[None]] | None = None, *, join: bool = True,
        join_timeout: float = JOIN_TIMEOUT,
    ) -> bool:
        """Run ``last()`` on the loop, cancel the tasks still running, close the async
        generators, stop the loop and (with ``join``, from another thread) wait up to
        JOIN_TIMEOUT for the thread to end. Later submissions get None. False when
        stopped already."""
        with self._lock:
            if not self._open:
                return False
            self._open = False
            asyncio.run_coroutine_threadsafe(self._finish(last), self.loop)
        if join and not self.on_loop_thread():
            self._thread.join(join_timeout)
            if self._thread.is_alive():
                log.warning("the portal's event loop thread did not end within %g s", join_timeout)
        return True

    async def _finish(self, last: Callable[[], Awaitable[None]] | None) -> None:
        self._run_queued()  # what joined before the stop, whose wake-up may come after this
        try:
            if last is not None:
                await last()
        except Exception:
            log.exception("closing on the portal's event loop failed")
        finally:
            for hosted in list(self.hosted):  # each fails its calls and says goodbye at once
                self.loop.create_task(hosted.aclose())
            await asyncio.sleep(0)
            this = asyncio.current_task()
            left = [task for task in asyncio.all_tasks() if task is not this]
            for task in left:
                task.cancel()
            if left:
                await asyncio.wait(left, timeout=_CANCEL_GRACE)
            await self.loop.shutdown_asyncgens()
            await asyncio.sleep(0)  # what those ends scheduled runs (an aborted transport's close)
            self.loop.stop()

    def forget(self) -> None:
        """In a process forked from the one that runs this loop: let go of this process's
        copies of the descriptors the loop watches (the connection's socket, the loop's
        wake-up socket) by pointing them at /dev/null, which also keeps a later close of
        their objects from closing anything else. Nothing else is touched: the thread
        does not exist here, the lock may have been held by it at the fork, and telling
        the selector to stop watching a descriptor would change the parent's too (an
        epoll set is shared across fork)."""
        self._open = False
        watched = self._selector.get_map()
        if watched is None:  # the loop was closed before the fork
            return
        descriptors = [key.fd for key in list(watched.values())]
        null = os.open(os.devnull, os.O_RDWR)
        try:
            for fd in descriptors:
                os.dup2(null, fd)
        finally:
            os.close(null)


_shared: LoopThread | None = None
_shared_lock = threading.Lock()
_shared_generation = 0  # the process generation _shared_lock was made in


def shared() -> LoopThread:
    """The process's portal loop thread, started on first use. In a forked child the
    parent's is left alone (its thread does not exist there) and the child gets its own."""
    global _shared, _shared_lock, _shared_generation
    portal = _shared
    if portal is not None and portal.open:
        return portal
    if _shared_generation != forks.generation:  # the parent's lock may have been held at the fork
        _shared_lock, _shared_generation = threading.Lock(), forks.generation
    with _shared_lock:
        portal = _shared
        if portal is None or not portal.open:
            portal = _shared = LoopThread("dualio-portal")
        return portal


def _stop_shared() -> None:
    portal = _shared
    if portal is not None and portal.open:
        portal.stop(join_timeout=EXIT_JOIN)


atexit.register(_stop_shared)
