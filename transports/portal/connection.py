"""The portal transport: a blocking transport that runs the native asyncio transport on
an event loop of its own thread (as anyio's ``BlockingPortal`` or Modal's synchronicity
offer an async library to blocking code).

Every ``PortalConnection`` of a process lives on one shared thread running one asyncio
loop (:func:`loop_thread.shared`), as one ``AsyncioConnection`` on it. A unary call
from any thread is a hop: a callback the loop runs begins the call (no task, no
concurrent future), and the answer's arrival releases a lock the calling thread waits
on. The native transport keeps the call's deadline; the waiting thread gives up a little
later (``BACKSTOP``, from the same deadline) only if the loop never answered.
A wait that ends early (that backstop, a KeyboardInterrupt) abandons the call on the
loop as a cancelled task does: CANCEL is sent, the late answer dropped.

A stream is pulled one item at a time through the loop; leaving it early closes the
async generator on the loop, which cancels the stream on the server.

What it costs: one thread per process, whatever the number of clients, and a hop to the
loop thread and back for every call and every stream item. Closing a client closes its
connection on the loop and joins no thread. Calling it from the loop thread would wait
for the thread it blocks, so that raises UsageError. Across ``fork()`` the thread stays
in the parent: the child only lets go of its copies of the descriptors (``forget``), and
its own clients get a loop thread of the child's.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
import types
import weakref
from collections.abc import AsyncGenerator, Callable, Generator
from typing import Any, Generic, NoReturn, TypeVar, cast

from dualio_transports import forks
from dualio_transports.blocking.dialing import Connecting
from dualio_transports.native.asyncio_connection import AsyncioConnection, LiveCall
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.portal import loop_thread
from dualio_transports.portal.loop_thread import Handoff, LoopThread, Waitable
from dualio_transports.wire import failures
from dualio_transports.wire.deadline import ItemDeadlines
from dualio_transports.wire.errors import DualioError, UsageError
from dualio_transports.wire.request import Request, StreamRequest
from dualio_transports.wire.timing import backstop_wait

T = TypeVar("T")

_STREAM_CLOSE = 1.0  # at most this long to close a stream left early
_CLOSE_WAIT = 2.0  # at most this long for the loop to close a connection (its grace: 1 s)


class _End:
    """The end of a stream, as one item pulled through the loop."""


_END = _End()


async def _next_item(items: AsyncGenerator[T, None]) -> T | _End:
    try:
        return await anext(items)
    except StopAsyncIteration:
        return _END


async def _close_stream(items: AsyncGenerator[T, None]) -> None:
    if isinstance(items, types.AsyncGeneratorType):
        while items.ag_running:  # a cancelled __anext__ that has not unwound yet
            await asyncio.sleep(0)
    await items.aclose()


async def _hosted(portal: LoopThread, options: ConnectOptions, until: float) -> AsyncioConnection:
    conn = await AsyncioConnection.connect(options, until)
    portal.hosted.add(conn)
    return conn


class _Closing:
    """A connection's close handed to the loop thread: the loop begins it and, once the
    socket has closed, releases ``ended``. No task: a close is a callback and the loop
    iterations its socket needs, which matters when thousands of threads, each closing
    its own client, take turns with the loop thread for the GIL."""

    __slots__ = ("_conn", "_portal", "ended")

    def __init__(self, portal: LoopThread, conn: AsyncioConnection) -> None:
        self._portal = portal
        self._conn = conn
        self.ended = threading.Lock()
        self.ended.acquire()

    def run(self) -> None:
        """On the loop."""
        self._portal.hosted.discard(self._conn)
        try:
            lost = self._conn.close_without_waiting()
        except BaseException:
            self.ended.release()
            raise
        if lost is None:
            self.ended.release()
        else:
            lost.add_done_callback(self._closed)

    def _closed(self, lost: asyncio.Future[None]) -> None:
        self.ended.release()

    def cancel(self) -> None:
        """The closing thread stopped waiting: the close goes on by itself."""

    def result(self) -> None:
        return None


def _close_unclosed(portal: LoopThread, conn: AsyncioConnection) -> None:
    """A connection dropped without close(): close it on the loop, without waiting."""
    if portal.open:
        portal.call_soon(_Closing(portal, conn).run)


def _stopped() -> RuntimeError:
    return RuntimeError("the portal's event loop has stopped")


def _on_loop_thread() -> UsageError:
    return UsageError(
        "a Client with transport='portal' was called from its own event loop thread, "
        "which would wait for itself: call it from another thread, or use AsyncClient "
        "on that loop"
    )


def _close_if_made(portal: LoopThread, handoff: Handoff[AsyncioConnection]) -> None:
    """On the loop, for a connect given up by its waiter: a connection it makes anyway is closed."""

    def close(task: asyncio.Task[AsyncioConnection]) -> None:
        if not task.cancelled() and task.exception() is None:
            _Closing(portal, task.result()).run()

    if handoff.task is not None:
        handoff.task.add_done_callback(close)


class _Hop(Generic[T]):
    """A unary call handed to the loop thread: the loop begins it and, once it has ended,
    releases ``ended``, which the calling thread waits on. No task, no concurrent future."""

    __slots__ = ("_conn", "_op", "call", "ended", "error", "future")

    def __init__(self, conn: AsyncioConnection, request: Request[T]) -> None:
        self._conn = conn
        self._op = request
        self.ended = threading.Lock()
        self.ended.acquire()
        self.future: asyncio.Future[Any] | None = None
        self.call: LiveCall | None = None
        self.error: BaseException | None = None  # what stopped the loop beginning it

    def run(self, until: float, sent: list[int] | None) -> None:
        """On the loop."""
        try:
            self.future, self.call = self._conn.call_with_callback(self._op, until, sent, self.ended.release)
        except BaseException as exc:
            self.error = exc
            self.ended.release()

    def cancel(self) -> None:
        """On the loop: the caller no longer waits; the call is given up."""
        if self.future is not None:
            self._conn.abandon(self.future, self.call)

    def result(self) -> T:
        """In the calling thread, once ``ended`` is released: the answer, or what ended the call."""
        if self.error is not None:
            raise self.error
        future = self.future
        assert future is not None
        if self.call is None:  # a task ran the whole call
            return cast(T, future.result())
        error = future.exception() or self.call.error  # its deadline, or its outcome
        if error is not None:
            raise error
        return self._op.decode(self.call.result)


class PortalConnection:
    """A connected, handshaken client connection, used from any thread. Thread-safe."""

    def __init__(self, portal: LoopThread, conn: AsyncioConnection) -> None:
        self._portal = portal
        self._conn = conn
        self._unclosed = weakref.finalize(self, _close_unclosed, portal, conn)
        self._unclosed.atexit = False

    @classmethod
    def connect(
        cls, options: ConnectOptions, until: float, attempt: Connecting | None = None,
    ) -> PortalConnection:
        """Connect and handshake on the shared loop thread (started if need be) by
        ``until``; ``attempt`` lets another thread stop it (``Client.close``)."""
        until = options.connect_deadline(until)
        portal = loop_thread.shared()
        if portal.on_loop_thread():
            raise _on_loop_thread()
        handoff = portal.submit(_hosted(portal, options, until))
        if handoff is None:  # the interpreter is exiting
            raise failures.connect_failed(options.where, _stopped())
        try:
            conn = cls._connected(portal, handoff, options, until, attempt)
        except BaseException:
            portal.call_soon(_close_if_made, portal, handoff)
            raise
        return cls(portal, conn)

    @staticmethod
    def _connected(
        portal: LoopThread, handoff: Handoff[AsyncioConnection], options: ConnectOptions,
        until: float, attempt: Connecting | None,
    ) -> AsyncioConnection:
        if attempt is not None:  # close() from another thread ends the wait at once
            attempt.on_stop(functools.partial(portal.call_soon, handoff.cancel))

        def backstop() -> DualioError:  # the loop never answered
            return failures.connect_failed(options.where, TimeoutError())

        try:
            return portal.wait(handoff, backstop_wait(until), backstop)
        except asyncio.CancelledError:
            if attempt is not None:
                attempt.check()  # raises: the client was closed while it connected
            raise failures.connect_failed(options.where, _stopped()) from None

    # -- calls ----------------------------------------------------------------

    def call(self, request: Request[T], until: float, sent: list[int] | None = None) -> T:
        self.check_thread()
        hop = _Hop(self._conn, request)
        if not self._portal.call_soon(hop.run, until, sent):
            self._closed()
        return self._result(hop, until, failures.call_timeout)

    def stream(
        self, request: StreamRequest[T], until: float, item_timeout: float | None, *,
        sent: list[int] | None = None,
    ) -> Generator[T, None, None]:
        """Items as they arrive, each pulled through the loop: the first by ``until``, each
        later one within ``item_timeout`` of asking for it. Leaving the loop early cancels
        the stream on the server."""
        self.check_thread()
        items = self._conn.stream(request, until, item_timeout, sent)
        deadlines = ItemDeadlines(until, item_timeout)  # the loop keeps the same ones
        started = False

        def expired() -> DualioError:
            return failures.item_timeout(item_timeout)

        try:
            while True:
                handoff = self._portal.submit(_next_item(items))
                started = started or handoff is not None
                item = self._result(handoff, deadlines.for_wait(time.monotonic()), expired)
                if isinstance(item, _End):
                    return
                deadlines.item_taken()
                yield item
        finally:
            if started:
                self._close(items)

    def _close(self, items: AsyncGenerator[T, None]) -> None:
        """Close a stream's async generator on the loop (its ``finally`` sends CANCEL), unless
        it has ended. Not from the loop thread itself (a generator dropped there): the loop
        closes a dropped async generator by itself."""
        if getattr(items, "ag_frame", True) is None or self._portal.on_loop_thread():
            return
        handoff = self._portal.submit(_close_stream(items))
        if handoff is None:
            return  # stopping: the loop closes its async generators itself
        try:
            self._portal.wait(handoff, _STREAM_CLOSE, failures.call_timeout)
        except (DualioError, asyncio.CancelledError):
            pass

    def _result(
        self, handoff: Waitable[T] | None, until: float, expired: Callable[[], DualioError]
    ) -> T:
        """What ``handoff`` ends with; the loop keeps ``until``, and this thread waits up to
        ``BACKSTOP`` beyond it in case the loop never answers."""
        if handoff is None:
            self._closed()
        try:
            return self._portal.wait(handoff, backstop_wait(until), expired)
        except asyncio.CancelledError:  # the loop stopped under it: close() ran meanwhile
            self._closed()

    def check_thread(self) -> None:
        """UsageError when called from the loop's own thread, or in a forked child."""
        portal = self._portal
        if portal.on_loop_thread():
            raise _on_loop_thread()
        if portal.born != forks.generation:
            raise UsageError(
                "this connection was made before os.fork(): its event loop thread exists only "
                "in the parent; make a new Client in the child"
            )

    def _closed(self) -> NoReturn:
        """What a call on a closed connection raises: the call table's ClosedError, the one
        every transport raises."""
        self._conn.check_usable()
        raise failures.closed_by_user()

    # -- state ------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._conn.closed

    def has_pending_input(self) -> bool:
        return self._conn.has_pending_input()

    @property
    def dropped(self) -> int:
        return self._conn.dropped

    @property
    def failure(self) -> DualioError | None:
        return self._conn.failure

    @property
    def thread(self) -> threading.Thread:
        """The thread that runs the loop (one per process, shared by every portal client)."""
        return self._portal.thread

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the connection lives on, for code that must run on it."""
        return self._portal.loop

    # -- closing ----------------------------------------------------------------

    def close(self) -> None:
        """Say goodbye and fail what is still waiting with ClosedError, on the loop, waiting
        at most ``_CLOSE_WAIT`` for it; the loop thread goes on serving the others. Idempotent."""
        if self._portal.born != forks.generation:
            self.forget()
            return
        self.check_thread()
        self._unclosed.detach()
        closing = _Closing(self._portal, self._conn)
        if not self._portal.call_soon(closing.run):
            return  # the interpreter is exiting: the loop closes what is left
        try:
            self._portal.wait(closing, _CLOSE_WAIT, failures.call_timeout)
        except DualioError:
            pass  # the connection is failed on the loop meanwhile; nothing more to wait for

    def forget(self) -> None:
        """Drop a connection inherited across ``fork()``: let go of this process's copies of
        its descriptors and nothing else (no goodbye, no lock, no loop, no thread)."""
        self._unclosed.detach()
        self._portal.forget()
