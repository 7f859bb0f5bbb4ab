"""The asyncio server model: one process, one event loop, any number of connections.

What keeps one client from hurting the server or the others (docs/architecture.md §7):

- The server accepts for itself (``loop.add_reader`` on each listening socket), so it
  knows when each connection was accepted, refuses connections over
  ``max_connections`` with ERROR id 0 BUSY, and backs off from accept() when the process
  is out of file descriptors instead of retrying in a busy loop.
- ``handshake_timeout`` is a deadline from accept: the TLS handshake gets what is left of
  it (``ssl_handshake_timeout``), the HELLO the rest.
- Answers are written only as fast as the peer reads: above ``write_buffer_high`` unsent
  bytes the connection stops *serving* (no request started, no delayed reply or stream
  item written; they wait for the drain) and stops reading.
- At most ``max_in_flight`` requests (holding at most ``max_in_flight_bytes``) are served
  at once per connection; requests read beyond that wait in a queue, and reading stays
  paused while that queue is not empty, so it holds at most one read.
- A stream writes its items in batches and yields to the loop after each, so a
  ``wait=0`` stream cannot freeze the server and its CANCEL is read at once.
- One timer per connection: the handshake deadline, then the idle timeout.

What keeps a request cheap: a zero-delay reply is answered inside ``data_received`` (no
timer, no task); a delayed reply (echo or upper with a delay, sleep) is a
``loop.call_later`` timer, not a task; and every answer decided in one loop pass joins the
connection's batch, written with one ``transport.write`` by a ``call_soon`` (at once if it
would take the unsent bytes to ``write_buffer_high``). The transport is used only through the methods of
``asyncio.Transport``, so any loop's transport (uvloop's) serves.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
import time
from collections import deque
from collections.abc import Callable
from typing import cast

from dualio.server.accept_backoff import PEER_ERRNOS, AcceptBackoff
from dualio.server.admission import Admission
from dualio.server.config import ServerConfig
from dualio.server.fd_limit import raise_fd_limit
from dualio.server.handshake_deadline import drop_late_peer, handshake_deadline
from dualio.server.idle_timeout import Idleness, idle_check, log_idle_close
from dualio.server.listening import listeners
from dualio.server.service import Counters, Reply, UnknownMethod, WordStream, plan
from dualio.server.socket_refusal import refuse_socket
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.server_protocol import CancelReceived, RequestReceived, ServerProtocol
from dualio_transports.wire.errors import ErrorCode

__all__ = ["AsyncServer", "ServerConfig"]

log = logging.getLogger("dualio.server")

STREAM_BATCH = 16 * 1024
"""A wait=0 stream writes this many bytes of items, then yields to the loop."""
ACCEPT_BATCH = 128
"""Connections accepted per readiness event of a listening socket."""
CLOSE_GRACE = 10.0
"""A connection closed with unsent bytes is aborted if the peer has not read them by then."""


class _Delayed:
    """A reply written when its timer fires (echo or upper with a delay, sleep)."""

    __slots__ = ("due", "handle", "payload", "rid")

    def __init__(self, rid: int, payload: bytes, due: float) -> None:
        self.rid = rid
        self.payload = payload
        self.due = due  # time.monotonic()
        self.handle: asyncio.TimerHandle | None = None


class _Connection(asyncio.Protocol):
    __slots__ = (
        "_cancelled", "_config", "_counters", "_due", "_flush_at", "_flush_due", "_handshaking",
        "_held", "_last_rx", "_loop", "_made", "_on_gone", "_out", "_out_size", "_paused_at",
        "_peer", "_pending", "_proto", "_reading_paused", "_receiving", "_timer", "_transport", "_work",
        "_writable", "_write_paused", "accepted_at",
    )

    def __init__(self, config: ServerConfig, loop: asyncio.AbstractEventLoop, accepted_at: float,
                 peer: str, on_gone: Callable[[_Connection], None]) -> None:
        self._config = config
        self._loop = loop
        self._on_gone = on_gone
        self._counters = config.counters
        self._proto = ServerProtocol(token=config.token, max_frame_size=config.max_frame_size,
                                     on_error=config.counters.error)
        # Requests in flight, by id: a delayed reply is its timer and payload, a stream its task.
        self._work: dict[int, _Delayed | asyncio.Task[bool]] = {}
        self._due: deque[_Delayed] | None = None  # delayed replies due while writing was paused
        self._pending: deque[RequestReceived] | None = None  # read, not started (made when needed)
        self._cancelled: set[int] | None = None  # ids in _pending that were cancelled
        self._held = 0  # payload bytes held by the delayed replies in _work
        self._out: list[bytes] = []  # answers decided in this loop pass, not yet written
        self._out_size = 0
        self._flush_due = False  # a call_soon will write _out
        self._receiving = False  # in data_received, which writes _out as it ends
        self._flush_at = config.write_buffer_high  # _out is written at once when this big
        self._transport: asyncio.Transport | None = None
        self._peer = peer
        self.accepted_at = accepted_at
        self._timer: asyncio.TimerHandle | None = None
        self._handshaking = True
        self._last_rx = accepted_at
        self._write_paused = False
        self._paused_at = 0.0
        self._writable: asyncio.Event | None = None
        self._reading_paused = False
        self._made = False
        self._counters.connection_opened()

    # -- lifetime --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Any loop's stream transport (asyncio's, uvloop's) has the methods of
        # asyncio.Transport without being one: no isinstance check here.
        self._transport = cast(asyncio.Transport, transport)
        self._made = True
        self._transport.set_write_buffer_limits(high=self._config.write_buffer_high)
        deadline = handshake_deadline(self._config, self.accepted_at)
        self._timer = self._loop.call_at(deadline, self._on_timer)

    def not_started(self, exc: BaseException) -> bool:
        """connect_accepted_socket failed (TLS handshake failed or timed out): connection_made
        was never called, so neither will connection_lost be. False if it was called."""
        if self._made:
            return False
        if isinstance(exc, asyncio.CancelledError):
            reason = "server stopping"
        else:
            reason = f"TLS handshake failed: {exc or type(exc).__name__}"
            log.warning("%s: %s", self._peer, reason)
            self._proto.abort(reason)
        self._proto.connection_lost()
        self._gone()
        return True

    def _gone(self) -> None:
        self._counters.connection_closed()
        self._on_gone(self)

    def connection_lost(self, exc: Exception | None) -> None:
        proto = self._proto
        if not proto.closing:  # the peer went away: one line if it left something behind
            if self._work or self._pending:
                log.warning("%s: connection lost with %d requests in flight", self._peer,
                            len(self._work) + len(self._pending or ()))
            elif proto.buffered:
                log.warning("%s: connection ended in the middle of a frame (%d bytes)", self._peer,
                            proto.buffered)
        proto.connection_lost()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._cancel_all()
        self._wake_writers()
        self._transport = None
        self._out.clear()
        self._out_size = 0
        self._gone()

    def _close(self, reason: str, *, log_it: bool = True) -> None:
        """The protocol is closing (its ERROR id 0 or CLOSE is queued): stop all work, write
        what is queued, close."""
        if log_it and reason != "client closed":
            log.warning("%s: closing connection: %s", self._peer, reason)
        self._cancel_all()
        self._flush()
        transport = self._transport
        if transport is not None and not transport.is_closing():
            transport.close()
            if transport.get_write_buffer_size():
                self._loop.call_later(CLOSE_GRACE, transport.abort)

    def _cancel_all(self) -> None:
        """Stop every request in flight or queued; nothing is written for them."""
        work = self._work
        for rid, job in list(work.items()):
            if isinstance(job, _Delayed):
                if job.handle is not None:
                    job.handle.cancel()
                del work[rid]
                self._held -= len(job.payload)
                self._counters.request_finished(False)
            else:
                job.cancel()  # its task ends in _finished
        self._due = None
        self._pending = None
        self._cancelled = None

    def goodbye(self) -> None:
        """Server shutdown: tell the client, then close."""
        self._write(self._proto.goodbye())
        self._close("server closed", log_it=False)

    # -- the one timer: handshake deadline, then idle timeout ------------------

    def _on_timer(self) -> None:
        self._timer = None
        transport, proto = self._transport, self._proto
        if transport is None or proto.closing:
            return
        if not proto.handshaken:
            drop_late_peer(self._config, proto, self._peer)
            self._cancel_all()
            transport.abort()
            return
        why = idle_check(self._config, self._loop.time(), last_received=self._last_rx,
                         in_flight=bool(self._work),
                         stalled_since=self._paused_at if self._write_paused else None)
        if not isinstance(why, Idleness):
            self._timer = self._loop.call_at(why, self._on_timer)
            return
        log_idle_close(self._config, self._peer, why)
        if why.says_goodbye:
            self._write(proto.goodbye())
            self._close("idle", log_it=False)
        else:
            proto.connection_lost()
            self._cancel_all()
            transport.abort()

    # -- reading ---------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        """Serve what ``data`` completes; the answers ready at once leave with one write as
        it ends (a call_soon for them would cost a pass of the loop per request)."""
        self._receiving = True
        try:
            self._serve_received(data)
        finally:
            self._receiving = False
        self._flush()

    def _serve_received(self, data: bytes) -> None:
        self._last_rx = self._loop.time()
        proto = self._proto
        try:
            events = proto.receive(data)
            out = proto.take_output()
            if out:
                self._write(out)
            if proto.closing:  # requests read with the bad frame are dropped (protocol.md §5.1)
                self._close(proto.close_reason)
                return
            if self._handshaking and proto.handshaken:
                self._handshaking = False
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None
                if self._config.idle_timeout:
                    self._timer = self._loop.call_at(self._last_rx + self._config.idle_timeout,
                                                     self._on_timer)
            config = self._config
            max_in_flight, max_bytes = config.max_in_flight, config.max_in_flight_bytes
            work = self._work
            served = 0
            for event in events:
                if type(event) is RequestReceived:
                    if (self._pending is None and not self._write_paused
                            and len(work) < max_in_flight and self._held < max_bytes):
                        if self._start(event):
                            served += 1
                    else:
                        if self._pending is None:
                            self._pending = deque()
                        self._pending.append(event)
                else:
                    assert isinstance(event, CancelReceived)
                    self._cancel(event.id)
            if served:
                self._counters.request_served_at_once(served)
            if self._pending and not self._reading_paused:
                self._set_reading()
        except Exception:  # a bug must cost one connection, never the server
            log.exception("%s: internal error, closing the connection", self._peer)
            proto.abort("internal error")
            self._close("internal error", log_it=False)

    def _cancel(self, rid: int) -> None:
        job = self._work.get(rid)
        if isinstance(job, _Delayed):
            if job.handle is not None:
                job.handle.cancel()
            self._delayed_done(job, None)
        elif job is not None:
            job.cancel()  # the stream's task ends in _finished, which answers CANCELLED
        elif self._pending:  # read but not started: answered CANCELLED when its turn comes
            if self._cancelled is None:
                self._cancelled = set()
            self._cancelled.add(rid)

    def _set_reading(self) -> None:
        """Read while nothing waits: no queued request, no answer waiting for the peer."""
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        pause = self._write_paused or bool(self._pending)
        if pause != self._reading_paused:
            self._reading_paused = pause
            if pause:
                transport.pause_reading()
            else:
                transport.resume_reading()

    def _pump(self) -> None:
        """Start queued requests while there is room, then read again if the queue is empty."""
        pending = self._pending
        config = self._config
        served = 0
        while (pending and not self._write_paused and len(self._work) < config.max_in_flight
               and self._held < config.max_in_flight_bytes and not self._proto.closing):
            request = pending.popleft()
            if self._cancelled and request.id in self._cancelled:
                self._cancelled.discard(request.id)
                self._write(self._proto.fail(request.id, ErrorCode.CANCELLED, "cancelled by the client"))
                continue
            if self._start(request):
                served += 1
        if served:
            self._counters.request_served_at_once(served)
        if pending is not None and not pending and pending is self._pending:
            self._pending = None
            self._cancelled = None
        self._set_reading()

    # -- serving ---------------------------------------------------------------

    def _start(self, request: RequestReceived) -> bool:
        """Serve one request; True if it was answered at once (the caller counts those)."""
        rid = request.id
        try:
            job = plan(request.method, request.args, self._counters, self._config.max_frame_size)
            if type(job) is Reply and job.delay == 0:  # answered inline: no timer, no task
                self._write(self._proto.respond(rid, job.payload))
                return True
            self._spawn(rid, job)
        except UnknownMethod as exc:
            self._refuse(rid, ErrorCode.UNKNOWN_METHOD, str(exc))
        except methods.BadArguments as exc:
            self._refuse(rid, ErrorCode.BAD_ARGUMENTS, str(exc))
        except Exception:  # a bug costs this request an ERROR frame, not the connection
            log.exception("%s: request %d failed", self._peer, rid)
            self._write(self._proto.fail(rid, ErrorCode.INTERNAL, "internal error"))
        return False

    def _spawn(self, rid: int, job: Reply | WordStream) -> None:
        if isinstance(job, Reply):  # a timer, no task
            delayed = _Delayed(rid, job.payload, time.monotonic() + job.delay)
            size = len(delayed.payload)
            delayed.handle = self._loop.call_later(job.delay, self._reply_due, delayed)
            self._work[rid] = delayed
            self._held += size
        else:
            coro = self._stream(rid, job)
            try:
                task = self._loop.create_task(coro)
            except BaseException:
                coro.close()
                raise
            task.add_done_callback(functools.partial(self._finished, rid))
            self._work[rid] = task
        self._counters.request_started()

    def _refuse(self, rid: int, code: ErrorCode, message: str) -> None:
        log.warning("%s: request %d refused: %s: %s", self._peer, rid, code.name, message)
        self._write(self._proto.fail(rid, code, message))

    def _reply_due(self, job: _Delayed) -> None:
        """A delayed reply's time has come: answer now, or once the peer has read enough."""
        job.handle = None
        if self._work.get(job.rid) is not job:  # cancelled while it waited for the drain
            return
        early = job.due - time.monotonic()
        if early > 0:  # uvloop's timers count whole milliseconds: one can fire up to 1 ms early
            job.handle = self._loop.call_later(early, self._reply_due, job)
            return
        if self._write_paused:
            if self._due is None:
                self._due = deque()
            self._due.append(job)
            return
        try:
            answer = self._proto.respond(job.rid, job.payload)
        except Exception as exc:
            self._delayed_done(job, exc)
        else:
            self._delayed_done(job, answer)

    def _delayed_done(self, job: _Delayed, answer: bytes | Exception | None) -> None:
        """A delayed reply ends: answered (``answer`` its frame), failed (the exception) or
        cancelled by the client (None). Frees its place and its bytes."""
        rid = job.rid
        del self._work[rid]
        self._held -= len(job.payload)
        self._last_rx = self._loop.time()  # idle time counts from the last answer too
        if isinstance(answer, bytes):
            self._counters.request_finished(True)
            self._write(answer)
        else:
            self._counters.request_finished(False)
            if answer is None:
                self._write(self._proto.fail(rid, ErrorCode.CANCELLED, "cancelled by the client"))
            else:
                log.error("%s: request %d failed", self._peer, rid, exc_info=answer)
                self._write(self._proto.fail(rid, ErrorCode.INTERNAL, "internal error"))
        if self._pending:
            self._pump()

    def _finished(self, rid: int, task: asyncio.Task[bool]) -> None:
        """Every started stream ends here, even one cancelled before its task ran."""
        self._work.pop(rid, None)
        self._last_rx = self._loop.time()  # idle time counts from the last answer too
        if task.cancelled():
            self._counters.request_finished(False)
            if rid in self._proto.open_ids:
                self._write(self._proto.fail(rid, ErrorCode.CANCELLED, "cancelled by the client"))
        elif task.exception() is not None:
            self._counters.request_finished(False)
            log.error("%s: request %d failed", self._peer, rid, exc_info=task.exception())
            self._write(self._proto.fail(rid, ErrorCode.INTERNAL, "internal error"))
        else:
            self._counters.request_finished(task.result())
        if self._pending:
            self._pump()

    async def _stream(self, rid: int, stream: WordStream) -> bool:
        proto = self._proto
        if stream.wait:
            for index in range(stream.count):
                if index:
                    await asyncio.sleep(stream.wait)
                if self._write_paused:
                    await self._drained()
                if proto.closing:
                    return False
                self._write(proto.stream_item(rid, stream.item(index)))
        else:
            batch = bytearray()
            for index in range(stream.count):
                batch += proto.stream_item(rid, stream.item(index))
                if len(batch) >= STREAM_BATCH:
                    self._write(bytes(batch))
                    batch.clear()
                    await asyncio.sleep(0)  # let other connections, and this one's CANCEL, in
                    if self._write_paused:
                        await self._drained()
                    if proto.closing:
                        return False
            if batch:
                self._write(bytes(batch))
        self._write(proto.stream_end(rid))
        return True

    # -- writing: one transport.write per connection per loop pass -------------

    def _write(self, data: bytes) -> None:
        """Queue ``data`` behind what this loop pass already decided; a call_soon writes it
        all with one transport.write. It is written at once when it would take the unsent
        bytes (here and in the transport) to ``write_buffer_high``, so pause_writing stops
        serving no later than when every answer was its own write."""
        if not data:
            return
        self._out.append(data)
        self._out_size += len(data)
        if self._out_size >= self._flush_at:
            self._flush()
        elif not self._flush_due and not self._receiving:  # data_received flushes as it ends
            self._flush_due = True
            self._loop.call_soon(self._flush_soon)

    def _flush_soon(self) -> None:
        self._flush_due = False
        self._flush()

    def _flush(self) -> None:
        out = self._out
        if not out:
            return
        data = out[0] if len(out) == 1 else b"".join(out)
        out.clear()
        self._out_size = 0
        transport = self._transport
        if transport is not None and not transport.is_closing():
            transport.write(data)  # may call pause_writing
            self._room()

    def _room(self) -> None:
        """What the next batch may hold: the room below the high-water mark. The transport
        only drains meanwhile, so this never lets more wait than write_buffer_high allows."""
        transport = self._transport
        if transport is not None:
            self._flush_at = self._config.write_buffer_high - transport.get_write_buffer_size()

    async def _drained(self) -> None:
        """Wait until the peer has read the buffer down below the low-water mark."""
        while self._write_paused and self._transport is not None:
            if self._writable is None:
                self._writable = asyncio.Event()
            await self._writable.wait()

    def _wake_writers(self) -> None:
        if self._writable is not None:
            self._writable.set()

    def pause_writing(self) -> None:
        self._write_paused = True
        self._paused_at = self._loop.time()
        if self._writable is not None:
            self._writable.clear()
        self._set_reading()

    def resume_writing(self) -> None:
        self._write_paused = False
        self._room()
        self._wake_writers()
        due = self._due
        while due and not self._write_paused:
            self._reply_due(due.popleft())
        self._pump()


def _peer_name(address: object) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)


class AsyncServer:
    """Serve until ``stop()``; ``start()`` binds and returns the bound port."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: list[socket.socket] = []
        self._connections: set[_Connection] = set()
        self._starting: set[asyncio.Task[object]] = set()
        self._backoff = AcceptBackoff()
        self._admission = Admission(config)
        self._resume: asyncio.TimerHandle | None = None

    @property
    def counters(self) -> Counters:
        return self.config.counters

    async def start(self) -> int:
        raise_fd_limit()
        self._loop = asyncio.get_running_loop()
        self._listeners = listeners(self.config)
        for sock in self._listeners:
            sock.setblocking(False)
        self._accepting(True)
        port: int = self._listeners[0].getsockname()[1]
        return port

    def _accepting(self, on: bool) -> None:
        assert self._loop is not None
        for sock in self._listeners:
            if on:
                self._loop.add_reader(sock.fileno(), self._accept, sock)
            else:
                self._loop.remove_reader(sock.fileno())

    def _accept(self, listener: socket.socket) -> None:
        loop = self._loop
        assert loop is not None
        for _ in range(ACCEPT_BATCH):
            try:
                sock, address = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in PEER_ERRNOS:
                    continue
                # out of fds or buffers (RESOURCE_ERRNOS), or anything unexpected: back off
                self._accepting(False)
                self._resume = loop.call_later(self._backoff.failed(exc, loop.time()), self._resumed)
                return
            self._backoff.succeeded()
            self._accepted(loop, sock, address)

    def _resumed(self) -> None:
        self._resume = None
        if self._listeners:
            self._accepting(True)

    def _accepted(self, loop: asyncio.AbstractEventLoop, sock: socket.socket, address: object) -> None:
        now = loop.time()
        config = self.config
        if not self._admission.admits(len(self._connections)):
            refuse_socket(sock, self._admission.refusal(now))
            return
        sock.setblocking(False)
        conn = _Connection(config, loop, now, _peer_name(address), self._connections.discard)
        self._connections.add(conn)
        if config.tls is None:
            coro = loop.connect_accepted_socket(lambda: conn, sock)
        else:
            coro = loop.connect_accepted_socket(
                lambda: conn, sock, ssl=config.tls, ssl_handshake_timeout=config.handshake_timeout,
            )
        task: asyncio.Task[object] = loop.create_task(coro)
        self._starting.add(task)
        task.add_done_callback(functools.partial(self._started, conn, sock))

    def _started(self, conn: _Connection, sock: socket.socket, task: asyncio.Task[object]) -> None:
        self._starting.discard(task)
        exc = asyncio.CancelledError() if task.cancelled() else task.exception()
        if exc is not None and conn.not_started(exc):
            sock.close()

    async def stop(self) -> None:
        if self._loop is None:
            return
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        if self._listeners:
            self._accepting(False)
        for sock in self._listeners:
            sock.close()
        self._listeners = []
        for task in list(self._starting):
            task.cancel()
        for conn in list(self._connections):
            conn.goodbye()
        self._connections.clear()
        await asyncio.sleep(0)
        self._loop = None
