"""The native async transport, on anyio (so on asyncio and on trio).

There is no background task: as in the blocking transport, a caller waiting
for an answer takes the *reader role*, reads what arrives and hands each frame
to the call it belongs to; when its own answer is in, it passes the role to the
next waiter. So a connection owns no task that could outlive it, it can be
closed from any task on its loop, and the two transports share one design.
Writes of whole frames are serialised by a lock and shielded from cancellation,
so a cancelled caller never leaves half a frame on the wire; they await the
socket's drain (backpressure) under the call's deadline.

Cancellation of a waiting call (task cancel, cancel scope, ``wait_for``,
``fail_after``) abandons its request id: the server is sent a CANCEL, the late
answer is dropped, and the id is not reused before the server's final frame.
"""

from __future__ import annotations

import asyncio
import functools
import math
import socket
import ssl
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

import anyio
from anyio.abc import ByteStream, SocketAttribute

from dualio_transports import async_driver
from dualio_transports.pending_input import PendingInput
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire import failures, procedure
from dualio_transports.wire.call_table import CallState, CallTable
from dualio_transports.wire.connection_facts import ConnectionFacts
from dualio_transports.wire.deadline import ItemDeadlines, on_clock, seconds_left
from dualio_transports.wire.errors import DualioError, DualioTimeout
from dualio_transports.wire.frame_write import FrameWrite
from dualio_transports.wire.request import Request, StreamRequest
from dualio_transports.wire.timing import grace_deadline, idle_read_deadline

T = TypeVar("T")
R = TypeVar("R")
_WRITE_PIECE = 256 * 1024  # a write's progress is checked this often (WRITE_STALL_LIMIT)
_RECEIVE_SIZE = 65536  # what one read takes at most (as anyio's streams)
_READ_ENDS = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError, ssl.SSLError)


class _Event(Protocol):
    def set(self) -> None: ...

    async def wait(self) -> None: ...


LiveCall = CallState[_Event]


class _Scope(Protocol):
    @property
    def cancelled_caught(self) -> bool: ...

    @property
    def cancel_called(self) -> bool: ...

    @property
    def deadline(self) -> float: ...

    @deadline.setter
    def deadline(self, value: float) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> bool | None: ...


def _nothing_pending() -> bool:
    return False  # a stream without a socket of its own to ask


def _wake(call: LiveCall) -> None:
    if call.waiter is not None:
        call.waiter.set()


def _fixed_offset(clock: object) -> bool:
    """Whether a trio clock is trio's own system clock (``perf_counter`` plus a fixed
    offset) on a platform where ``perf_counter`` and ``monotonic`` are one clock: then a
    deadline goes onto it by one fixed offset. A clock of the user's (trio's MockClock,
    which may jump) is asked each time."""
    kind = type(clock)
    return (kind.__name__ == "SystemClock" and kind.__module__.startswith("trio.")
            and time.get_clock_info("perf_counter").implementation
            == time.get_clock_info("monotonic").implementation)


def _send_now(sock: socket.socket, data: bytes) -> int:
    """Bytes of ``data`` a non-blocking socket took at once (none when it has no room)."""
    try:
        return sock.send(data)
    except BlockingIOError:
        return 0


async def _trio_receive(
    sock: socket.socket, wait_readable: Callable[[socket.socket], Awaitable[None]],
    closed: type[Exception],
) -> bytes:
    """trio (its ``wait_readable`` and ``ClosedResourceError``, given): wait until the
    socket is readable, then take what came (b"": its end). A socket closed by another
    task meanwhile raises anyio's ``ClosedResourceError``."""
    while True:
        if sock.fileno() < 0:  # closed before the wait began
            raise anyio.ClosedResourceError
        try:
            await wait_readable(sock)
        except closed:
            raise anyio.ClosedResourceError from None
        try:
            return sock.recv(_RECEIVE_SIZE)
        except BlockingIOError:  # another reader took it, or the kernel woke us early
            continue


class AnyioConnection(ConnectionFacts[_Event]):
    """A connected, handshaken connection. Use from the loop (and task) that opened it."""

    def __init__(self, stream: ByteStream, options: ConnectOptions) -> None:
        self._stream = stream
        self._table: CallTable[_Event] = CallTable(
            options.wire_protocol(), now=time.monotonic(), wake=_wake,
            keepalive=options.keepalive,
        )
        self._follow_end()
        self._write_lock = anyio.Lock()
        self._writing = False  # a writer holds the lock: a request joins its batch
        self._outbox: list[bytes] = []  # a frame taken back stays as b"", so tickets keep their place
        self._queued = 0  # frames ever queued ...
        self._sent = 0  # ... and how many of them are on the wire
        self._reading = False
        self._waiters: dict[LiveCall, float] = {}  # -> until; ordered: the next reader is the first
        self._watched: set[LiveCall] = set()  # waiters whose time the reader keeps
        self._read_scope: _Scope | None = None  # the reader's, while it reads
        self._read_until = math.inf
        self._raw: socket.socket | None = stream.extra(SocketAttribute.raw_socket, None)
        self._pending_input: Callable[[], bool] = (
            _nothing_pending if self._raw is None else PendingInput(self._raw)
        )
        self._unread: PendingInput | None = None if self._raw is None else PendingInput(self._raw, busy=True)
        self.loop = LoopHandle.current()
        # A waiting call's event and the reader's cancel scope: on trio, trio's own, without
        # anyio's wrappers around them (their cost is paid per call).
        self._clock: Callable[[], float] = anyio.current_time
        self._scope_type: Callable[..., _Scope] = anyio.CancelScope
        self._event_type: Callable[[], _Event] = anyio.Event
        self._offset: float | None = None  # the loop's clock minus time.monotonic(), if fixed
        self._checkpoint_if_cancelled: Callable[[], Awaitable[None]] = anyio.lowlevel.checkpoint_if_cancelled
        self._before_batch: Callable[[], Awaitable[None]] = anyio.lowlevel.checkpoint_if_cancelled
        """What a writer awaits before it takes the next batch from the queue: a stream's send
        lets the other tasks run once, so their requests join the batch after it; a send on
        the socket itself (trio over TCP) or into asyncio's transport (plain TCP) that finds
        room does not, so the writer lets them run first (one scheduler pass: 100 requests
        in flight leave in a few sends, not 100, and the server reads them together); a
        lone call's request goes at once."""
        # What is written without waiting, and how a read waits and takes what came: on
        # trio over plain TCP, on the socket itself (trio's stream checkpoints after each
        # send and each receive that did not wait, an extra pass of its scheduler per call).
        self._send_now: Callable[[bytes], int] | None = None
        # On asyncio over plain TCP, writes go into the transport under anyio's stream (see
        # _send_buffered); its protocol's write_event says whether the buffer has room.
        # On asyncio over plain TCP, anyio's stream, whose sends write a piece whole (see
        # _writes_at_once).
        protocol = getattr(stream, "_protocol", None) if self.loop.backend == "asyncio" else None
        plain = options.tls is None and isinstance(getattr(protocol, "write_event", None), asyncio.Event)
        self._asyncio_stream: Any = stream if plain else None
        if plain:  # _write_at_once writes with no checkpoint
            self._before_batch = anyio.lowlevel.checkpoint
        self._wait_writable: Callable[[socket.socket], Awaitable[None]] | None = None
        self._closed_meanwhile: type[Exception] = anyio.ClosedResourceError
        self._receive: Callable[[], Awaitable[bytes]] = stream.receive
        if self.loop.backend == "trio":
            import trio

            self._clock, self._scope_type, self._event_type = trio.current_time, trio.CancelScope, trio.Event
            if _fixed_offset(trio.lowlevel.current_clock()):
                self._offset = trio.current_time() - time.monotonic()
            self._checkpoint_if_cancelled = trio.lowlevel.checkpoint_if_cancelled
            if self._raw is not None and options.tls is None:
                self._send_now = functools.partial(_send_now, self._raw)
                self._before_batch = trio.lowlevel.checkpoint
                self._wait_writable = trio.lowlevel.wait_writable
                self._closed_meanwhile = trio.ClosedResourceError
                self._receive = functools.partial(
                    _trio_receive, self._raw, trio.lowlevel.wait_readable, trio.ClosedResourceError
                )

    def _until(self, until: float) -> _Scope:
        """A cancel scope that ends at ``until`` (a ``time.monotonic()`` deadline)."""
        return self._scope_type(deadline=self._on_loop(until))

    def _on_loop(self, until: float) -> float:
        """``until`` on the loop's clock: by the fixed offset of trio's own clock when it
        runs on ``time.monotonic``'s (one addition, where asking trio its time is a few
        Python calls), else converted now (:func:`on_clock`)."""
        offset = self._offset
        return on_clock(until, self._clock) if offset is None else until + offset

    def has_pending_input(self) -> bool:
        """Whether bytes wait that nobody read yet: a client-side cache asks before it
        answers from memory (True when it cannot tell: a stream without a socket)."""
        unread = self._unread
        return unread is None or self._reading or unread()

    @classmethod
    async def connect(cls, options: ConnectOptions, until: float) -> AnyioConnection:
        """Connect and handshake by ``until`` (``connect_timeout`` from now at the latest)."""
        until = options.connect_deadline(until)
        host, port, tls = options.host, options.port, options.tls
        try:
            with anyio.CancelScope(deadline=on_clock(until, anyio.current_time)) as connecting:
                stream: ByteStream
                if options.unix_path is not None:
                    stream = await anyio.connect_unix(options.unix_path)
                elif tls is None:
                    stream = await anyio.connect_tcp(host, port)
                else:
                    stream = await anyio.connect_tcp(
                        host, port, ssl_context=tls, tls_hostname=options.tls_hostname,
                        tls_standard_compatible=False,
                    )
            if connecting.cancelled_caught:
                raise TimeoutError
        except (OSError, ssl.SSLError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise failures.connect_failed(options.where, exc) from exc
        conn = cls(stream, options)
        if conn._raw is not None and conn._raw.family != socket.AF_UNIX:
            conn._raw.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        try:
            await conn._handshake(until)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await conn.aclose()
            raise
        return conn

    async def _handshake(self, until: float) -> None:
        await self._drive(procedure.handshake(self._table, until, time.monotonic()))

    # -- calls --------------------------------------------------------------------

    def stream(
        self, request: StreamRequest[T], until: float, item_timeout: float | None,
        sent: list[int] | None = None,
    ) -> AsyncGenerator[T, None]:
        deadlines = ItemDeadlines(until, item_timeout)
        steps = procedure.stream(self._table, request.method, request.args, deadlines, time.monotonic(), sent)
        return async_driver.stream_items(steps, self._perform, request.decode_item)

    async def call(self, request: Request[T], until: float, sent: list[int] | None = None) -> T:
        """Send one request and return its decoded answer, by ``until``.

        :func:`procedure.roundtrip`, its straight line written out (as in the blocking
        transport): start, send, the first wait. A waiting call's task is resumed through
        every coroutine and generator between it and its event, so the usual path drives
        no procedure, and calls one only for what is not straight: a failed write, a wait
        past the first deadline or keepalive check, a give-up."""
        table = self._table
        if table.idle(time.monotonic()) and not self._reading and self._pending_input():
            await self._read_idle(until)
        call, data = table.start(request.kind, request.method, request.args, request.answers, until)
        ticket = 0  # its place in the outbox, while it waits there for the writer
        if self._writing:  # _send_request's first case, written out
            self._outbox.append(data)
            ticket = self._queued = self._queued + 1
        else:
            send = procedure.Send(data, call)
            try:
                await self._send_request(send)
            except GeneratorExit:  # closed half-way (collected): given up when the table is next used
                table.collect(call)
                raise
            except BaseException:
                await self._drive(procedure.unsent(table, call, send.may_have_left))
                raise
            del send
        del data  # the request can be large: not kept while the answer is awaited
        if sent is not None:
            sent.append(call.id)
        try:
            if not call.done:
                await self._await_news(call, table.wait_end(call, time.monotonic()), False)
                if not call.done:
                    expired = failures.call_timeout
                    if ticket:
                        expired = functools.partial(self._deadline_while_queued, call, ticket, sent)
                    await self._drive(procedure.answer(table, call, time.monotonic(), expired))
        except GeneratorExit:  # closed half-way (collected): given up when the table is next used
            table.collect(call)
            raise
        except BaseException:
            await self._drive(procedure.give_up(table, call))
            raise
        return request.decode(call.outcome())

    # -- performing the procedure's effects ---------------------------------------------

    def _drive(self, steps: Generator[procedure.Effect, float, R]) -> Awaitable[R]:
        return async_driver.run(steps, self._perform)

    async def _perform(self, effect: procedure.Effect) -> None:
        if type(effect) is procedure.Await:
            await self._await_news(effect.call, effect.wake, effect.want_item)
        elif type(effect) is procedure.Send:
            await self._send_request(effect)
        elif type(effect) is procedure.Control:
            await self._control(effect.data)
        elif type(effect) is procedure.ReadIdle:
            if not self._reading and self._pending_input():
                await self._read_idle(effect.until)
        elif type(effect) is procedure.ReadOn:
            self._pass_reader_role()
        elif type(effect) is procedure.Teardown:
            await self._teardown(effect.failure)

    async def _send_request(self, send: procedure.Send) -> None:
        """A request joins the batch of the writer holding the lock, if one does (it sends
        what was queued before it lets go): the caller goes on to wait for its answer at
        once, as on asyncio, where a write only fills the transport's buffer."""
        ticket = self._queue(send.data)
        if self._writing:
            return
        try:
            await self._write_queued(ticket, send.call.until)
        except BaseException:
            send.may_have_left = not self._take_back(ticket)  # still queued: it never left
            if any(self._outbox) and self._table.failure is None:  # a taken-back frame stays as b""
                await self._send_left()
            raise

    async def _send_left(self) -> None:
        """Send the requests that joined a writer that stopped before sending them (it was
        cancelled, or its own time ran out first): their callers wait for answers."""
        until = grace_deadline()
        with anyio.CancelScope(shield=True), self._until(until):
            try:
                await self._write(b"", until)
            except DualioError:
                pass  # the connection failed: so do the calls that were waiting

    async def _control(self, data: bytes) -> None:
        """A CANCEL or a PING: written now if nobody is writing, else queued for the writer
        (who sends what was queued meanwhile before letting go): never waits for the lock."""
        if self._write_lock.locked():
            self._queue(data)
            return
        until = grace_deadline()
        with anyio.CancelScope(shield=True), self._until(until):
            try:
                await self._write(data, until)
            except DualioError:
                pass  # a CANCEL is only advice; the caller's own outcome stands

    def _deadline_while_queued(self, call: LiveCall, ticket: int, sent: list[int] | None) -> DualioTimeout:
        """What a call's deadline means when its request joined a writer's batch: if the
        request is still in the outbox it is taken back, never sent (its key is free at
        once), and the call timed out writing it; else it left, and the call timed out."""
        if not self._take_back(ticket):
            return failures.call_timeout()
        self._table.unsent(call, may_have_left=False)
        if sent:
            sent.pop()
        return failures.deadline_passed(request_left=False)

    def _take_back(self, ticket: int) -> bool:
        """Take the frame queued with ``ticket`` out of the outbox, if no writer has taken
        it yet: it never left. By its place, never by its bytes: several requests may be
        one bytes object (a Redis command without arguments is one cached object), and
        taking back another's would send this one's in its place and shift every answer
        after it by one."""
        place = ticket - 1 - (self._queued - len(self._outbox))
        if place < 0 or not self._outbox[place]:
            return False
        self._outbox[place] = b""
        return True

    def _queue(self, data: bytes) -> int:
        if data:
            self._outbox.append(data)
            self._queued += 1
        return self._queued

    async def _write(self, data: bytes, until: float) -> None:
        """:meth:`_write_queued`, ``data`` queued first."""
        await self._write_queued(self._queue(data), until)

    async def _write_queued(self, ticket: int, until: float) -> None:
        """Put the frame queued with ``ticket`` on the wire (with all queued before it), or
        fail the connection: never half a frame.

        Frames queued meanwhile (requests join without waiting for the lock) go out
        together with the next send (one system call for many requests). A send interrupted
        once it may have begun (a cancel, the call's timeout, a peer that read
        nothing for ``WRITE_STALL_LIMIT``) may have cut a frame, so it fails the
        connection: a cancelled caller is never held by a peer that does not read.
        """
        write: FrameWrite | None = None
        if self._send_now is not None and not self._writing and self._table.in_flight <= 1:
            try:
                write = self._write_now(ticket, until)
            except DualioError:  # its time is up before anything left (a DualioTimeout is an OSError)
                raise
            except OSError as exc:
                raise await self._teardown(failures.broken(exc))  # noqa: B904  (its cause is set)
            if write is None:
                return
        try:
            self._write_lock.acquire_nowait()
        except anyio.WouldBlock:
            with self._until(until) as waiting:
                await self._write_lock.acquire()
            if waiting.cancelled_caught:
                raise failures.write_timeout() from None
        self._writing = True
        try:
            if self._sent >= ticket:  # ours went with the writer before us
                if self._sent >= self._queued:
                    return
                # Frames queued as the lock passed to us, by callers that did not wait for
                # it (a CANCEL, a PING): nobody else will send them.
                until = grace_deadline()
            if write is not None:  # a batch _write_now began: the rest waits for room
                await self._send_pieces(write)
                self._sent = write.upto
            if self._table.failure is not None:
                self._table.check_usable()
            while self._sent < self._queued:  # frames queued while a batch went out follow it
                if self._table.in_flight > 1:  # nothing of this batch has left yet
                    await self._before_batch()
                else:  # a lone call's request goes at once
                    await self._checkpoint_if_cancelled()
                await self._room(until)
                left = seconds_left(until)
                if left is not None and left <= 0:
                    raise failures.write_timeout()  # nothing of this batch has left: it stays queued
                batch = self._outbox[0] if len(self._outbox) == 1 else b"".join(self._outbox)
                self._outbox.clear()
                write = FrameWrite(batch, until, left, upto=self._queued)
                await self._send_pieces(write)
                self._sent = write.upto
        except DualioError:
            raise
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise await self._teardown(failures.broken(exc))  # noqa: B904  (its cause is set)
        finally:
            self._writing = False
            self._write_lock.release()

    def _write_now(self, ticket: int, until: float) -> FrameWrite | None:
        """A lone call (no other in flight, nobody writing), on a socket of its own: the
        queue sent at once, with no lock and no wait (nothing else runs meanwhile). None
        when all of it left; else the batch begun, for the writer to finish once the
        socket has room. With other calls in flight, a writer sends through the stream,
        whose send lets them run once before the next batch, so their requests join it."""
        if self._sent >= ticket:
            return None  # ours went with the writer before us, who sent all queued
        if self._table.failure is not None:
            self._table.check_usable()
        left = seconds_left(until)
        if left is not None and left <= 0:
            raise failures.write_timeout()  # nothing of it left: it stays queued
        outbox = self._outbox
        batch = outbox[0] if len(outbox) == 1 else b"".join(outbox)
        done = self._send_now(batch)  # type: ignore[misc]
        outbox.clear()
        if done == len(batch):
            self._sent = self._queued
            return None
        write = FrameWrite(batch, until, left, upto=self._queued)
        write.sent(done)
        return write

    async def _send_pieces(self, write: FrameWrite) -> None:
        """Send the rest of a batch by the rules of :class:`FrameWrite`, a piece at a time (a
        stream does not say how much of a send it began went out: an interrupted piece may
        be cut). The first piece may take ``write.first_wait`` seconds, measured before the
        batch left the queue: measured again here, it could be past already, and a scope past
        its end cancels a send before it begins, which would count as a cut frame."""
        if self._send_now is not None:
            await self._send_exact(write)
            return
        batch = write.data
        unknown = False
        try:
            while not write.finished:
                whole = not write.done and len(batch) <= _WRITE_PIECE
                piece = batch if whole else bytes(write.rest[:_WRITE_PIECE])
                if self._writes_at_once():
                    if await self._write_at_once(write, piece):
                        return  # all of it left; the call meets its deadline waiting for its answer
                    continue
                unknown = True  # an ended send may have cut its piece
                with self._until(write.wait_until()) as sending:
                    await self._stream.send(piece)
                if sending.cancelled_caught:
                    error, failure = write.expired(may_have_begun=True)
                    if failure is not None:
                        await self._teardown(failure)
                    raise error
                unknown = False
                write.sent(len(piece))
        except anyio.get_cancelled_exc_class():
            if write.finished:
                self._sent = max(self._sent, write.upto)
            failure = write.interrupted("cancelled", may_have_begun=unknown)
            if failure is not None:
                await self._teardown(failure)
            raise

    async def _send_exact(self, write: FrameWrite) -> None:
        """Send the rest of a batch on the socket itself (trio over plain TCP), which says
        how many bytes each send took: a deadline or a cancel while it waits for room cuts
        a frame only if part of it left, as on the blocking transport."""
        assert self._send_now is not None and self._raw is not None
        try:
            while True:
                write.sent(self._send_now(write.rest))  # type: ignore[arg-type]  # a buffer will do
                if write.finished:
                    return
                if self._raw.fileno() < 0:  # closed by another task (the connection failed)
                    raise anyio.ClosedResourceError
                with self._until(write.wait_until()) as waiting:
                    try:
                        await self._wait_writable(self._raw)  # type: ignore[misc]
                    except self._closed_meanwhile:  # trio's own: another task closed the socket
                        raise anyio.ClosedResourceError from None
                if waiting.cancelled_caught:
                    error, failure = write.expired()
                    if failure is not None:
                        await self._teardown(failure)
                    raise error
        except anyio.get_cancelled_exc_class():
            failure = write.interrupted("cancelled")
            if failure is not None:
                await self._teardown(failure)
            raise

    def _writes_at_once(self) -> bool:
        """Whether the next send writes all of its piece before anything can end it. On
        asyncio, anyio's send writes the whole piece into the transport's buffer at once,
        unless a cancel is pending or writing is paused (the buffer full), which a writer
        waits out before it takes a batch from the queue (:meth:`_room`): what can end the
        send after is only the wait for the buffer to drain, and then all of it left.
        Elsewhere (trio's stream, TLS), how much of an ended send left is unknown."""
        stream = self._asyncio_stream
        return stream is not None and bool(stream._protocol.write_event.is_set())

    async def _write_at_once(self, write: FrameWrite, piece: bytes) -> bool:
        """Write ``piece`` into asyncio's transport, whole, as anyio's send would (without
        its first checkpoint, a cancel that could not say whether it came before the
        write), then wait while the buffer drains, as anyio's send does: a deadline or a
        cancel there cuts nothing of the piece. True when the batch's deadline ended the
        wait with all of it written."""
        stream = self._asyncio_stream
        transport = stream._transport
        if transport.is_closing():
            raise anyio.BrokenResourceError
        transport.write(piece)
        write.sent(len(piece))
        room = stream._protocol.write_event
        if room.is_set():
            return False
        with self._until(write.wait_until()) as draining:
            await room.wait()
        if draining.cancelled_caught and write.finished:
            self._sent = max(self._sent, write.upto)
            return True
        return False

    async def _room(self, until: float) -> None:
        """On asyncio, before a batch leaves the queue: wait while writing is paused, by
        ``until`` (then nothing of the batch left: the write timed out, and it stays
        queued) or the stall limit (a peer that reads nothing fails the connection)."""
        stream = self._asyncio_stream
        if stream is None:
            return
        await self._checkpoint_if_cancelled()
        room = stream._protocol.write_event
        if room.is_set():
            return
        waited = FrameWrite(b"", until)  # its rules: the deadline, or the stall limit first
        with self._until(waited.wait_until()) as waiting:
            await room.wait()
        if waiting.cancelled_caught:
            error, failure = waited.expired()
            if failure is not None:
                raise await self._teardown(failure)
            raise error

    async def _teardown(self, failure: DualioError) -> DualioError:
        """Fail the connection and close its stream; the failure it ended with (the first)."""
        failure = self._table.fail(failure)
        with anyio.CancelScope(shield=True), self._until(grace_deadline()):
            await self._stream.aclose()
        return failure

    # -- reading ------------------------------------------------------------------

    async def _await_news(self, call: LiveCall, until: float, want_item: bool) -> None:
        """Return when ``call`` is done (or has an item), or at ``until``; read while nobody
        else does.

        A waiter's time is kept by the reader, whose read ends at the earliest ``until``
        of all (it wakes the waiters whose time is up), so a call waits on its event
        alone, with no cancel scope of its own (on trio, a scope per call was a third of
        a call's cost). With no reader (a stream's backlog holds them all), each waiter
        keeps its own time."""
        try:
            while not (call.done or (want_item and call.items)):
                if time.monotonic() >= until:
                    return
                if not self._reading and not self._table.holds_reading(call):
                    await self._read_for(until)
                    continue
                call.waiter = self._event_type()
                self._waiters[call] = until
                try:
                    if self._read_scope is not None:
                        self._watched.add(call)
                        if until < self._read_until:
                            self._read_until = until
                            self._read_scope.deadline = self._on_loop(until)
                        await call.waiter.wait()
                    else:
                        with self._until(until):
                            await call.waiter.wait()
                finally:
                    self._waiters.pop(call, None)
                    self._watched.discard(call)
        finally:
            if not self._reading and self._waiters:
                self._pass_reader_role()

    async def _read_for(self, until: float) -> None:
        """Read once, as the reader, by the earliest ``until`` of the reader and every waiter."""
        earliest = min(until, min(self._waiters.values(), default=math.inf))
        self._reading = True
        self._read_until = earliest
        scope = self._read_scope = self._until(earliest)
        data: bytes | BaseException | None = None  # None: the scope's deadline came first
        try:
            with scope:
                try:
                    data = await self._receive()
                except _READ_ENDS as exc:
                    data = exc
            if data is not None:
                failure = self._arrived(data)
                if failure is not None:
                    await self._teardown(failure)
        finally:
            earliest = self._read_until  # no watched waiter's time ends before it
            self._reading = False
            self._read_scope = None
            self._read_until = math.inf
            if self._watched:
                self._wake_unwatched(earliest)

    def _wake_unwatched(self, earliest: float) -> None:
        """Once a read ends, the watched waiters whose time is up are woken to see so (the
        others are kept by the next read, this reader's or the next reader's)."""
        now = time.monotonic()
        if now < earliest:
            return
        for waiting in [c for c in self._watched if self._waiters.get(c, math.inf) <= now]:
            self._watched.discard(waiting)
            _wake(waiting)

    async def _read_idle(self, until: float) -> None:
        """Read what arrived while the connection was idle (``CallTable.idle``: a goodbye,
        or the end of the stream), so the call about to start finds the connection closed
        before its request leaves, not after. The kernel said it is there, so the read is
        short; anyio has no "read only what is there", hence the bound."""
        self._reading = True
        try:
            with self._until(idle_read_deadline(until)):
                await self._read_some()
        finally:
            self._reading = False
            self._pass_reader_role()

    def _pass_reader_role(self) -> None:
        if not self._reading and self._waiters:
            first = next(iter(self._waiters))
            _wake(first)
            if self._table.holds_reading(first):  # it will not read: nobody keeps their time
                for waiting in self._watched:
                    _wake(waiting)
                self._watched.clear()

    async def _read_some(self) -> None:
        try:
            data: bytes | BaseException = await self._receive()
        except _READ_ENDS as exc:
            data = exc
        failure = self._arrived(data)
        if failure is not None:
            await self._teardown(failure)

    def _arrived(self, data: bytes | BaseException) -> DualioError | None:
        """Route what a read brought (bytes, or what ended the read); the connection's
        failure if that ended it."""
        if isinstance(data, BaseException):
            return failures.peer_closed() if isinstance(data, anyio.EndOfStream) else failures.broken(data)
        if not data:  # a socket's end (a stream says so with EndOfStream)
            return failures.peer_closed()
        return self._table.receive(data, time.monotonic())

    # -- closing --------------------------------------------------------------------

    async def aclose(self) -> None:
        """Say goodbye and fail waiting calls with ClosedError. Any task on the loop may close."""
        if self._table.closing:
            return
        with anyio.CancelScope(shield=True):
            goodbye = self._table.close()
            if goodbye:
                until = grace_deadline()
                with self._until(until):
                    try:
                        await self._write(goodbye, until)
                    except DualioError:
                        pass
            self._table.fail(failures.closed_by_user())
            await self._stream.aclose()
