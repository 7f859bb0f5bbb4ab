"""The threaded server model: one thread per connection, as in the classic
socketserver servers. Requests on one connection are served one after another.
While a request waits (its delay, or between stream items) the thread keeps
reading: a PING is answered at once (so a client's keepalive sees a live
server), a CANCEL ends the waiting request (or drops a queued one), and new
requests queue behind it, up to ``max_in_flight``.

Limits (docs/architecture.md §7): one request in flight per connection by design, the
requests of one read queued behind it; answers are sent with blocking ``sendall``, so
they go out only as fast as the peer reads; ``handshake_timeout`` is a deadline from
accept (the socket timeout is recomputed before every read, and covers the TLS
handshake); after the handshake the socket timeout is ``idle_timeout``, for reads and
for sends alike. The accept loop refuses connections over ``max_connections`` with
ERROR id 0 BUSY and backs off when accept() fails for want of file descriptors.
"""

from __future__ import annotations

import logging
import select
import socket
import ssl
import threading
import time
from collections import deque

from dualio.server.accept_backoff import PEER_ERRNOS, AcceptBackoff
from dualio.server.admission import Admission
from dualio.server.config import ServerConfig
from dualio.server.fd_limit import raise_fd_limit
from dualio.server.handshake_deadline import drop_late_peer, handshake_deadline
from dualio.server.idle_timeout import Idleness, idle_socket_timeout, log_idle_close
from dualio.server.listening import listeners
from dualio.server.service import Reply, UnknownMethod, WordStream, plan
from dualio.server.socket_refusal import refuse_socket
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.server_protocol import CancelReceived, RequestReceived, ServerProtocol
from dualio_transports.wire.errors import ErrorCode

log = logging.getLogger("dualio.server")

STREAM_BATCH = 16 * 1024
"""A wait=0 stream sends this many bytes of items per sendall."""
ACCEPT_POLL = 0.1
"""How often the accept loop looks at the stop flag."""


class _PeerGone(Exception):
    """A send failed or timed out: the connection is over, not the request."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(str(cause))
        self.cause = cause


class _HandshakeDeadline(Exception):
    pass


def _send(sock: socket.socket, data: bytes) -> None:
    if data:
        try:
            sock.sendall(data)
        except OSError as exc:
            raise _PeerGone(exc) from exc


class _Handler:
    """One connection, served on its own thread."""

    def __init__(self, server: ThreadedServer, sock: socket.socket, address: object,
                 accepted_at: float) -> None:
        self.server = server
        self.config = server.config
        self.sock = sock
        self.accepted_at = accepted_at
        self.peer = (f"{address[0]}:{address[1]}" if isinstance(address, tuple) and len(address) >= 2
                     else str(address))
        self._queued: deque[RequestReceived] = deque()  # read while a request waited

    def run(self) -> None:
        server, config = self.server, self.config
        counters = config.counters
        peer = self.peer
        proto = ServerProtocol(token=config.token, max_frame_size=config.max_frame_size,
                               on_error=counters.error)
        deadline = handshake_deadline(config, self.accepted_at)
        sock = self.sock
        counters.connection_opened()
        server.track(sock, True)
        try:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if config.tls is not None:
                # The whole TLS handshake runs under one deadline (CPython's do_handshake
                # counts the socket timeout from its start, not per read).
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                server.track(sock, False)
                try:
                    sock = config.tls.wrap_socket(sock, server_side=True)
                except TimeoutError:
                    raise _HandshakeDeadline() from None
                except OSError as exc:
                    reason = f"TLS handshake failed: {exc}"
                    log.warning("%s: %s", peer, reason)
                    proto.abort(reason)
                    return
                finally:
                    server.track(sock, True)
            self._serve(sock, proto, deadline)
        except _HandshakeDeadline:
            drop_late_peer(config, proto, peer)
        except _PeerGone as gone:
            if isinstance(gone.cause, TimeoutError):
                log_idle_close(config, peer, Idleness.STALLED)
            else:
                log.warning("%s: connection lost: %s", peer, gone.cause)
        except OSError as exc:
            log.warning("%s: connection lost: %s", peer, exc)
        except Exception:
            log.exception("%s: internal error, closing the connection", peer)
            proto.abort("internal error")
        finally:
            proto.connection_lost()
            server.track(sock, False)
            try:
                sock.close()
            except OSError:
                pass
            counters.connection_closed()
            server.connection_ended()

    def _serve(self, sock: socket.socket, proto: ServerProtocol, deadline: float) -> None:
        config = self.config
        peer = self.peer
        while not proto.closing:
            if not proto.handshaken:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _HandshakeDeadline()
                sock.settimeout(remaining)
            try:
                data = sock.recv(65536)
            except TimeoutError:
                if not proto.handshaken:
                    raise _HandshakeDeadline() from None
                log_idle_close(config, peer, Idleness.IDLE)
                sock.settimeout(1.0)
                _send(sock, proto.goodbye())
                return
            if not data:
                if proto.buffered:
                    log.warning("%s: connection ended in the middle of a frame (%d bytes)",
                                peer, proto.buffered)
                return
            was_handshaken = proto.handshaken
            events = proto.receive(data)
            _send(sock, proto.take_output())
            if proto.closing:  # requests read with the bad frame are dropped (protocol.md §5.1)
                break
            if proto.handshaken and not was_handshaken:
                sock.settimeout(idle_socket_timeout(config))
            self._queued.extend(event for event in events if type(event) is RequestReceived)
            while self._queued and not proto.closing:
                self._request(sock, proto, self._queued.popleft())
        if proto.close_reason not in ("client closed", "server closed"):
            log.warning("%s: closing connection: %s", peer, proto.close_reason)

    def _request(self, sock: socket.socket, proto: ServerProtocol, request: RequestReceived) -> None:
        counters = self.config.counters
        rid = request.id
        try:
            job = plan(request.method, request.args, counters, self.config.max_frame_size)
        except (UnknownMethod, methods.BadArguments) as exc:
            code = ErrorCode.UNKNOWN_METHOD if isinstance(exc, UnknownMethod) else ErrorCode.BAD_ARGUMENTS
            log.warning("%s: request %d refused: %s: %s", self.peer, rid, code.name, exc)
            _send(sock, proto.fail(rid, code, str(exc)))
            return
        except Exception:
            log.exception("%s: request %d failed", self.peer, rid)
            _send(sock, proto.fail(rid, ErrorCode.INTERNAL, "internal error"))
            return
        counters.request_started()
        served = False
        try:
            if isinstance(job, Reply):
                if job.delay and self._wait(sock, proto, rid, job.delay):
                    _send(sock, proto.fail(rid, ErrorCode.CANCELLED, "cancelled by the client"))
                    return
                _send(sock, proto.respond(rid, job.payload))
            elif isinstance(job, WordStream):
                self._stream(sock, proto, rid, job)
            served = True
        except _PeerGone:
            raise
        except Exception:
            log.exception("%s: request %d failed", self.peer, rid)
            _send(sock, proto.fail(rid, ErrorCode.INTERNAL, "internal error"))
        finally:
            counters.request_finished(served)

    def _stream(self, sock: socket.socket, proto: ServerProtocol, rid: int, stream: WordStream) -> None:
        if stream.wait:
            for index in range(stream.count):
                if index and self._wait(sock, proto, rid, stream.wait):
                    _send(sock, proto.fail(rid, ErrorCode.CANCELLED, "cancelled by the client"))
                    return
                _send(sock, proto.stream_item(rid, stream.item(index)))
        else:
            batch = bytearray()
            for index in range(stream.count):
                batch += proto.stream_item(rid, stream.item(index))
                if len(batch) >= STREAM_BATCH:
                    _send(sock, bytes(batch))
                    batch.clear()
            _send(sock, bytes(batch))
        _send(sock, proto.stream_end(rid))


    def _wait(self, sock: socket.socket, proto: ServerProtocol, rid: int, seconds: float) -> bool:
        """Let ``seconds`` pass for request ``rid`` while answering what the peer sends
        meanwhile; True if the peer cancelled ``rid``."""
        until = time.monotonic() + seconds
        while (left := until - time.monotonic()) > 0:
            if proto.closing or len(self._queued) >= self.config.max_in_flight:
                time.sleep(left)  # stop reading: the queue is full, or the connection is ending
                return False
            pending = isinstance(sock, ssl.SSLSocket) and sock.pending()
            if not pending and not _readable(sock, left):
                continue
            try:
                data = sock.recv(65536)
            except (BlockingIOError, ssl.SSLWantReadError):
                continue
            except OSError as exc:
                raise _PeerGone(exc) from exc
            if not data:
                raise _PeerGone(ConnectionResetError("the peer closed the connection"))
            events = proto.receive(data)
            _send(sock, proto.take_output())  # PONGs, and any connection-level ERROR
            cancelled = False
            for event in events:
                if type(event) is RequestReceived:
                    self._queued.append(event)
                elif type(event) is CancelReceived:
                    if event.id == rid:
                        cancelled = True
                    else:
                        self._cancel_queued(sock, proto, event.id)
            if cancelled or proto.closing:
                return cancelled
        return False

    def _cancel_queued(self, sock: socket.socket, proto: ServerProtocol, rid: int) -> None:
        for queued in self._queued:
            if queued.id == rid:
                self._queued.remove(queued)
                _send(sock, proto.fail(rid, ErrorCode.CANCELLED, "cancelled by the client"))
                return


class ThreadedServer:
    """Serve on background threads until ``stop()``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._socks: set[socket.socket] = set()
        self._open = 0
        self._backoff = AcceptBackoff()
        self._admission = Admission(config)

    def start(self) -> int:
        raise_fd_limit()
        bound = listeners(self.config)
        for extra in bound[1:]:  # one accept loop: the first address (as socketserver did)
            extra.close()
        self._listener = bound[0]
        self._listener.settimeout(ACCEPT_POLL)
        self._stopping.clear()
        self._thread = threading.Thread(target=self._accept_loop, name="dualio-threaded-server",
                                        daemon=True)
        self._thread.start()
        port: int = self._listener.getsockname()[1]
        return port

    def _accept_loop(self) -> None:
        listener = self._listener
        assert listener is not None
        while not self._stopping.is_set():
            try:
                sock, address = listener.accept()
            except TimeoutError:
                continue
            except OSError as exc:
                if self._stopping.is_set():
                    return
                if exc.errno in PEER_ERRNOS:
                    continue
                # out of fds or buffers (RESOURCE_ERRNOS), or anything unexpected: back off
                self._stopping.wait(self._backoff.failed(exc, time.monotonic()))
                continue
            self._backoff.succeeded()
            self._accepted(sock, address)

    def _accepted(self, sock: socket.socket, address: object) -> None:
        now = time.monotonic()
        with self._lock:
            admitted = self._admission.admits(self._open)
            if admitted:
                self._open += 1
        if not admitted:
            refuse_socket(sock, self._admission.refusal(now))
            return
        sock.settimeout(None)
        handler = _Handler(self, sock, address, now)
        try:
            threading.Thread(target=handler.run, name=f"dualio-conn-{handler.peer}", daemon=True).start()
        except RuntimeError as exc:  # can't start new thread: a resource limit, like EMFILE
            sock.close()
            self.connection_ended()
            self._stopping.wait(self._backoff.failed(OSError(0, str(exc)), now))

    def connection_ended(self) -> None:
        with self._lock:
            self._open -= 1

    def track(self, sock: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._socks.add(sock)
            else:
                self._socks.discard(sock)

    def stop(self) -> None:
        if self._listener is None or self._thread is None:
            return
        self._stopping.set()
        self._thread.join()
        self._listener.close()
        self._listener = None
        self._thread = None
        self._shut_connections()

    def _shut_connections(self) -> None:
        """Shut every open connection down: its handler's next read sees the end."""
        with self._lock:
            socks = list(self._socks)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _readable(sock: socket.socket, seconds: float) -> bool:
    """Whether ``sock`` has bytes (or its end) within ``seconds``. ``poll`` where there is
    one: ``select`` refuses descriptors past FD_SETSIZE (1024), which a server with
    thousands of connections has."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(max(1, int(seconds * 1000) + 1)))
    return bool(select.select([sock], [], [], seconds)[0])
