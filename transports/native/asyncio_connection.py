"""The native transport's asyncio fast path: an ``asyncio.Protocol`` with futures.

Same interface and the same guarantees as :mod:`dualio_transports.native.anyio_connection` (which runs
on trio and on asyncio through anyio); on asyncio and uvloop this one is used
because anyio's cancel scopes and events cost more per call than the call itself
on loopback (docs/results.md has the numbers). Each call is one future and one entry
in the connection's deadlines; frames are written whole by construction
(``write`` buffers them), so cancellation never leaves half a frame on the wire.
A connection has one loop timer, armed for the earliest of its calls' deadlines
and its next keepalive check.

It is a buffered protocol: the loop receives into a buffer the connection names. While
a large answer arrives that is the answer's own buffer, sized from its checked header
(:meth:`FrameDecoder.room`), so its bytes are copied once, not once per read; otherwise it
is one read buffer per event loop (a loop runs one read at a time, and each read's
bytes are taken out before anything else runs), so ten thousand connections on one
loop hold one buffer, not ten thousand.
"""

from __future__ import annotations

import asyncio
import math
import socket
import time
import weakref
from collections.abc import AsyncGenerator, Callable
from functools import partial
from operator import methodcaller
from typing import Any, TypeVar, cast

from dualio_transports import async_driver
from dualio_transports.native.timer_queue import TimerQueue
from dualio_transports.pending_input import PendingInput
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire import failures, procedure, timing
from dualio_transports.wire.call_table import CallState, CallTable
from dualio_transports.wire.connection_facts import ConnectionFacts
from dualio_transports.wire.deadline import NO_DEADLINE, ItemDeadlines, on_clock
from dualio_transports.wire.errors import DualioError, DualioTimeout
from dualio_transports.wire.frame_write import buffer_stalled
from dualio_transports.wire.request import Request, StreamRequest
from dualio_transports.wire.timing import CLOSE_GRACE, KEEPALIVE_SLACK

T = TypeVar("T")
_BATCH_FRAMES = 256
"""Frames queued in one loop iteration go out together, this many at a time: a long batch
would hold the first requests back until the last is made (fan-out)."""
LiveCall = CallState["asyncio.Future[None]"]
_ended = methodcaller("done")
_READ_SIZE = 256 * 1024  # asyncio's own read size for a plain protocol
_read_buffers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, memoryview] = weakref.WeakKeyDictionary()


def _read_buffer(loop: asyncio.AbstractEventLoop) -> memoryview:
    """The read buffer of ``loop``'s connections (see the module's text)."""
    view = _read_buffers.get(loop)
    if view is None:
        view = _read_buffers[loop] = memoryview(bytearray(_READ_SIZE))
    return view




def _wake(call: LiveCall) -> None:
    waiter = call.waiter
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


class AsyncioConnection(asyncio.BufferedProtocol, ConnectionFacts["asyncio.Future[None]"]):
    __slots__ = (
        "_clock", "_close_grace", "_deadlines", "_decoder", "_disconnected", "_drained", "_into_room",
        "_keepalive_at", "_loop", "_lost", "_monotonic_clock", "_outbox", "_paused", "_plain_futures",
        "_read_view", "_reading_paused", "_stall_check", "_table", "_timer", "_transport", "_unread",
        "loop",
    )

    def __init__(self, loop: asyncio.AbstractEventLoop, options: ConnectOptions) -> None:
        self._table: CallTable[asyncio.Future[None]] = CallTable(
            options.wire_protocol(), now=time.monotonic(), wake=_wake,
            keepalive=options.keepalive,
        )
        self._follow_end()
        self._deadlines: TimerQueue[asyncio.Future[None]] = TimerQueue(_ended)
        """Each waiting future's deadline: it ends with a timeout error then (a stream
        item's carries the item timeout, for the error text)."""
        self._keepalive_at = math.inf  # loop time of the next keepalive check
        self._timer: asyncio.TimerHandle | None = None  # armed for the earliest of the two
        self._loop = loop
        # asyncio's own loop: its clock is time.monotonic and its futures asyncio.Future,
        # made here without a Python-level call each
        self._clock = time.monotonic if type(loop).time is asyncio.BaseEventLoop.time else loop.time
        self._monotonic_clock = self._clock is time.monotonic
        self._plain_futures = type(loop).create_future is asyncio.BaseEventLoop.create_future
        self.loop = LoopHandle.current()
        self._transport: asyncio.Transport | None = None
        self._disconnected = False  # connection_lost has come
        self._paused = False
        self._stall_check: asyncio.TimerHandle | None = None  # while paused (see _watch_stall)
        self._reading_paused = False  # a stream's consumer is behind (see STREAM_BACKLOG)
        self._drained: asyncio.Future[None] | None = None
        self._outbox: list[bytes] | None = None  # frames to write together, soon
        self._lost: asyncio.Future[None] | None = None  # made when closing waits for it
        self._close_grace: asyncio.TimerHandle | None = None  # aborts a close the peer holds up
        self._read_view = _read_buffer(loop)
        self._decoder = self._table.protocol.decoder  # after a failure too: what is read is dropped
        self._into_room = False  # the last get_buffer gave a large answer's own buffer
        self._unread: PendingInput | None = None

    @classmethod
    async def connect(cls, options: ConnectOptions, until: float) -> AsyncioConnection:
        """Connect and handshake by ``until`` (``connect_timeout`` from now at the latest)."""
        until = options.connect_deadline(until)
        loop = asyncio.get_running_loop()
        conn = cls(loop, options)
        try:
            async with asyncio.timeout_at(None if until == NO_DEADLINE else conn._loop_time(until)):
                if options.unix_path is not None:
                    await loop.create_unix_connection(lambda: conn, options.unix_path)
                else:
                    await loop.create_connection(
                        lambda: conn, options.host, options.port, ssl=options.tls,
                        server_hostname=options.tls_hostname if options.tls else None,
                    )
            await async_driver.run(procedure.handshake(conn._table, until, time.monotonic()), conn._perform)
            conn._keepalive()
            if conn._keepalive_at < conn._deadlines.armed:
                conn._arm(conn._keepalive_at)
        except (OSError, DualioError) as exc:
            conn._abort()
            if conn._transport is None:
                raise failures.connect_failed(options.where, exc) from exc
            error = failures.handshake_failed(exc)
            if error is exc:
                raise
            raise error from exc
        except BaseException:
            conn._abort()
            raise
        return conn

    # -- protocol callbacks ---------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        sock = transport.get_extra_info("socket")
        if sock is not None:
            self._unread = PendingInput(sock, busy=True)
            if sock.family != socket.AF_UNIX:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def has_pending_input(self) -> bool:
        """Whether bytes wait on the socket that the loop has not handed over yet: a
        client-side cache asks before it answers from memory (True when it cannot tell)."""
        unread = self._unread
        return unread is None or unread()

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._decoder.large is None:
            self._into_room = False
            return self._read_view
        self._into_room = True
        return cast(memoryview, self._decoder.room())

    def buffer_updated(self, nbytes: int) -> None:
        table = self._table
        data = nbytes if self._into_room else self._read_view[:nbytes].tobytes()
        failure = table.receive(data, time.monotonic())
        if failure is not None:
            self._abort()
            self._resume()
        elif table.backlogged and not self._reading_paused and self._transport is not None:
            self._reading_paused = True
            self._transport.pause_reading()

    def _read_on(self) -> None:
        """Resume reading once no stream's consumer is behind any more."""
        if self._reading_paused and not self._table.backlogged and self._transport is not None:
            self._reading_paused = False
            if not self._transport.is_closing():
                self._transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._deadlines.armed = math.inf  # no timer runs now
        self._keepalive_at = math.inf
        self._stop_stall_watch()
        self._disconnected = True
        self._table.fail(failures.broken(exc) if exc else failures.peer_closed())
        self._resume()
        if self._close_grace is not None:
            self._close_grace.cancel()
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(None)

    def pause_writing(self) -> None:
        self._paused = True
        self._watch_stall(self._buffered())

    def resume_writing(self) -> None:
        self._paused = False
        self._stop_stall_watch()
        self._resume()

    def _stop_stall_watch(self) -> None:
        if self._stall_check is not None:
            self._stall_check.cancel()
            self._stall_check = None

    def _buffered(self) -> int:
        return self._transport.get_write_buffer_size() if self._transport is not None else 0

    def _watch_stall(self, buffered: int) -> None:
        """While writing is paused, look every ``WRITE_STALL_LIMIT`` whether the buffer
        stalled (:func:`frame_write.buffer_stalled`), whatever the calls' own timeouts."""
        self._stall_check = self._loop.call_later(timing.WRITE_STALL_LIMIT, self._check_stall, buffered)

    def _check_stall(self, before: int) -> None:
        self._stall_check = None
        if not self._paused or self._table.failure is not None:
            return
        now = self._buffered()
        stalled = buffer_stalled(before, now)
        if stalled is None:
            self._watch_stall(now)
            return
        self._perform_now(procedure.Teardown(self._table.fail(stalled)))

    def _resume(self) -> None:
        """Wake a caller waiting for the socket to drain (or for the news that it never will)."""
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def _abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    # -- the timer: deadlines and keepalive ---------------------------------------------

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_at(when, self._on_timer)
        self._deadlines.armed = when

    def _expire_at(self, when: float, waiter: asyncio.Future[None], timeout: float | None) -> None:
        """End ``waiter`` with a timeout error at ``when`` (loop time), unless it ends first;
        ``timeout``: a stream item's (for the error text), or None for a call's."""
        if self._deadlines.add(when, waiter, timeout):
            self._arm(when)

    def _on_timer(self) -> None:
        self._timer = None
        now = self._loop.time()
        for waiter, timeout in self._deadlines.fired(now):
            waiter.set_exception(failures.deadline_error(timeout))
        when = self._deadlines.arm()
        if now >= self._keepalive_at:
            self._keepalive()
        when = min(when, self._keepalive_at)
        if when != math.inf:
            self._arm(when)

    def _keepalive(self) -> None:
        """A PING after ``keepalive`` seconds of silence; the connection fails if it goes
        unanswered as long. Plans the next check; the caller arms the timer for it."""
        self._keepalive_at = math.inf
        due = procedure.keepalive_due(self._table, time.monotonic())
        if due is not None:
            self._perform_now(due)
            if self._table.failure is not None:
                return
        if not self._table.closed:
            self._keepalive_at = self._loop_time(self._keepalive_timer())

    def _keepalive_timer(self) -> float:
        """When the timer looks next (this transport's timer, not its waiting callers, keeps
        the keepalive schedule): :data:`KEEPALIVE_SLACK` after the table's next check is
        due; :data:`NO_DEADLINE` when none is planned."""
        now = time.monotonic()
        check = self._table.next_keepalive_check(now)
        if check is None:
            return NO_DEADLINE
        return max(check, now) + KEEPALIVE_SLACK

    # -- calls --------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        """Send a whole frame: at once when it is the only call in flight (a round trip
        waits on it, and batching would cost a loop pass); else queued, and the frames
        queued in one loop iteration go out together, ``_BATCH_FRAMES`` at a time."""
        outbox = self._outbox
        if outbox is None:
            transport = self._transport
            if len(self._table.live) <= 1 and transport is not None and not transport.is_closing():
                transport.write(data)
                return
            self._loop.call_soon(self._flush)
            self._outbox = [data]
        else:
            outbox.append(data)
            if len(outbox) >= _BATCH_FRAMES:
                self._flush()

    def _flush(self) -> None:
        outbox, self._outbox = self._outbox, None
        if outbox and self._transport is not None and not self._transport.is_closing():
            self._transport.write(b"".join(outbox))

    def _call_future(self, until: float) -> asyncio.Future[None]:
        """A call's future, ended with a timeout error at ``until`` unless it ends first."""
        loop = self._loop
        future: asyncio.Future[None] = (
            asyncio.Future(loop=loop) if self._plain_futures else loop.create_future()
        )
        if until != NO_DEADLINE:
            when = until if self._monotonic_clock else on_clock(until, self._clock)
            if self._deadlines.add(when, future):
                self._arm(when)
        return future

    async def call(self, request: Request[T], until: float, sent: list[int] | None = None) -> T:
        """Send one request and return its decoded answer, by ``until``.

        :meth:`_call_future` and :meth:`_send_call` written out: the call costs two
        Python calls fewer (about 900 instructions in 94,000)."""
        loop = self._loop
        future: asyncio.Future[None] = (
            asyncio.Future(loop=loop) if self._plain_futures else loop.create_future()
        )
        if until != NO_DEADLINE:
            when = until if self._monotonic_clock else on_clock(until, self._clock)
            if self._deadlines.add(when, future):
                self._arm(when)
        call: LiveCall | None = None
        try:
            if self._paused:  # backpressure: wait for the socket to drain, by the deadline
                try:
                    await self._wait_drained(future)
                except DualioTimeout:
                    raise failures.write_timeout() from None
            call, data = self._table.start(request.kind, request.method, request.args, request.answers, until)
            call.waiter = future
            self._write(data)
            if sent is not None:
                sent.append(call.id)
            if call.done:  # a request that expects no answer
                future.set_result(None)
            await future
        except BaseException:
            if call is not None:
                self._give_up(call)
            if not future.done():
                future.cancel()  # never awaited: its deadline must find it ended
            raise
        error = call.error  # call.outcome(), without the call
        if error is not None:
            raise error
        return request.decode(call.result)

    def call_with_callback(
        self, request: Request[T], until: float, sent: list[int] | None,
        ended: Callable[[], object],
    ) -> tuple[asyncio.Future[Any], LiveCall | None]:
        """Begin a unary call without a coroutine, for a caller on another thread (the
        portal's hop); ``ended()`` runs on the loop once it has ended. Returns the future
        that ends with it and the call, whose :meth:`CallState.outcome` is then the raw
        answer; or, while writing is paused (waiting for the socket to drain takes a
        coroutine), a task running :meth:`call`, whose result is the decoded answer, and None."""
        loop = self._loop
        if self._paused:
            task = loop.create_task(self.call(request, until, sent))
            task.add_done_callback(lambda _: ended())
            return task, None
        future = self._call_future(until)
        try:
            call = self._send_call(request, future, sent, until)
        except BaseException:
            future.cancel()
            raise
        future.add_done_callback(partial(self._started_call_ended, call, ended))
        return future, call

    def _send_call(
        self, request: Request[Any], future: asyncio.Future[None], sent: list[int] | None, until: float,
    ) -> LiveCall:
        """Start a call that ``future`` waits for (its deadline, ``until``, kept by the
        loop's timer), and write its request whole: at once, or with what the loop pass
        writes (the portal's hop; the coroutine :meth:`call` writes the same step out)."""
        call, data = self._table.start(request.kind, request.method, request.args, request.answers, until)
        call.waiter = future
        self._write(data)
        if sent is not None:
            sent.append(call.id)
        if call.done:  # a request that expects no answer
            future.set_result(None)
        return call

    def _started_call_ended(
        self, call: LiveCall, ended: Callable[[], object], future: asyncio.Future[None]
    ) -> None:
        if not future.cancelled() and future.exception() is not None:  # its deadline
            self._give_up(call)
        ended()

    def abandon(self, future: asyncio.Future[Any], call: LiveCall | None) -> None:
        """Give up a call begun with :meth:`call_with_callback` whose caller no longer waits,
        unless it has ended."""
        if not future.done():
            if call is not None:
                self._give_up(call)
            future.cancel()

    async def _wait_drained(self, future: asyncio.Future[None]) -> None:
        """Return when writing may resume; raises what ends ``future`` first (its timeout)."""
        while self._paused and not future.done() and not self._table.closed:
            if self._drained is None or self._drained.done():
                self._drained = self._loop.create_future()
            await asyncio.wait((self._drained, future), return_when=asyncio.FIRST_COMPLETED)
        if future.done():
            future.result()

    def _give_up(self, call: LiveCall) -> None:
        for effect in procedure.give_up(self._table, call):
            self._perform_now(effect)

    def stream(
        self, request: StreamRequest[T], until: float, item_timeout: float | None,
        sent: list[int] | None = None,
    ) -> AsyncGenerator[T, None]:
        deadlines = ItemDeadlines(until, item_timeout)
        steps = procedure.stream(self._table, request.method, request.args, deadlines, time.monotonic(), sent)
        return async_driver.stream_items(steps, self._perform, request.decode_item)

    # -- performing the procedure's effects (the unary call above makes the same
    # -- decisions inline: a procedure's steps cost more than its round trip) --------------

    async def _perform(self, effect: procedure.Effect) -> None:
        if type(effect) is procedure.Await:
            await self._await_news(effect.call, effect.wake)
        elif type(effect) is procedure.Send:
            if self._paused and not self._table.ordered:  # in order: its call started, so it goes now
                await self._wait_drained_until(effect.call.until)
            self._write(effect.data)
        else:
            self._perform_now(effect)

    def _perform_now(self, effect: procedure.Effect) -> None:
        """The effects that never wait."""
        if type(effect) is procedure.Control:
            self._write(effect.data)
        elif type(effect) is procedure.ReadOn:
            self._read_on()
        elif type(effect) is procedure.Teardown:
            self._abort()
            self._resume()
        # ReadIdle: nothing to do, the protocol reads all the time

    def _loop_time(self, until: float) -> float:
        """A ``time.monotonic()`` deadline on the loop's clock."""
        return on_clock(until, self._clock)

    async def _await_news(self, call: LiveCall, until: float) -> None:
        """Return when ``call`` has news, or at ``until``."""
        waiter = call.waiter = self._loop.create_future()
        if until != math.inf:
            self._expire_at(self._loop_time(until), waiter, None)
        try:
            await waiter
        except DualioTimeout:
            return  # its deadline: what that means is the procedure's to say
        finally:
            if not waiter.done():
                waiter.cancel()  # left unawaited: its deadline must find it ended

    async def _wait_drained_until(self, until: float) -> None:
        ready: asyncio.Future[None] = self._loop.create_future()
        if until != math.inf:
            self._expire_at(self._loop_time(until), ready, None)
        try:
            await self._wait_drained(ready)
        except DualioTimeout:
            raise failures.write_timeout() from None
        finally:
            ready.cancel()  # ended: its deadline is dropped

    # -- closing ----------------------------------------------------------------------

    async def aclose(self) -> None:
        """Say goodbye, fail waiting calls with ClosedError, wait for the socket to close."""
        lost = self.close_without_waiting()
        if lost is not None:
            await lost

    def close_without_waiting(self) -> asyncio.Future[None] | None:
        """What ``aclose`` does before it waits, for a caller that waits by callback: say
        goodbye, fail waiting calls with ClosedError and close the transport. The future
        ends when the socket has closed, aborted if that takes over ``CLOSE_GRACE`` (a
        peer that reads nothing), whether anyone waits or not; None when there is nothing
        to wait for, closing having begun before."""
        if self._table.closing:
            return None
        goodbye = self._table.close()
        transport = self._transport
        if transport is not None and goodbye:
            self._write(goodbye)
            self._flush()
        self._table.fail(failures.closed_by_user())
        self._resume()
        if transport is None:
            return None
        transport.close()
        if self._disconnected:
            return None
        lost = self._lost = self._loop.create_future()
        self._close_grace = self._loop.call_later(CLOSE_GRACE, self.abort)
        return lost

    def abort(self) -> None:
        """Close the socket now, dropping what is unsent."""
        if self._transport is not None:
            self._transport.abort()
