"""The threaded server model: one thread per connection, as in the classic
socketserver servers. Requests on one connection are served one after another;
a CANCEL is read only between requests."""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
import time

from dualio.server.async_model import ServerConfig
from dualio.server.limits import raise_fd_limit
from dualio.server.service import Reply, UnknownMethod, WordStream, plan
from transports.wire import methods
from transports.wire.errors import ErrorCode
from transports.wire.server_protocol import Request, ServerProtocol

log = logging.getLogger("dualio.server")


class _Handler(socketserver.BaseRequestHandler):
    server: _TCPServer
    peer = "?"

    def handle(self) -> None:
        config = self.server.config
        counters = config.counters
        sock: socket.socket = self.request
        peer = self.peer = "{}:{}".format(*self.client_address[:2])
        proto = ServerProtocol(token=config.token, max_frame_size=config.max_frame_size)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(config.handshake_timeout)
        counters.connection_opened()
        self.server.track(sock, True)
        try:
            if config.tls is not None:
                self.server.track(sock, False)
                sock = config.tls.wrap_socket(sock, server_side=True)
                self.server.track(sock, True)
            while not proto.closing:
                data = sock.recv(65536)
                if not data:
                    if proto.buffered:
                        log.warning("%s: connection ended in the middle of a frame (%d bytes)",
                                    peer, proto.buffered)
                    break
                events = proto.receive(data)
                sock.sendall(proto.take_output())
                if proto.handshaken:
                    sock.settimeout(None)
                for event in events:
                    if isinstance(event, Request):
                        self._serve(sock, proto, event)
            if proto.closing and proto.close_reason != "client closed":
                counters.error()
                log.warning("%s: closing connection: %s", peer, proto.close_reason)
        except TimeoutError:
            log.warning("%s: no HELLO within %.1fs, closing", peer, config.handshake_timeout)
        except OSError as exc:
            log.warning("%s: connection lost: %s", peer, exc)
        except Exception:
            counters.error()
            log.exception("%s: internal error, closing the connection", peer)
        finally:
            self.server.track(sock, False)
            counters.connection_closed()

    def _serve(self, sock: socket.socket, proto: ServerProtocol, request: Request) -> None:
        counters = self.server.config.counters
        rid = request.id
        try:
            job = plan(request.method, request.args, counters, self.server.config.max_frame_size)
        except (UnknownMethod, methods.BadArguments) as exc:
            code = ErrorCode.UNKNOWN_METHOD if isinstance(exc, UnknownMethod) else ErrorCode.BAD_ARGUMENTS
            counters.error()
            log.warning("%s: request %d refused: %s: %s", self.peer, rid, code.name, exc)
            sock.sendall(proto.fail(rid, code, str(exc)))
            return
        counters.request_started()
        ok = False
        try:
            if isinstance(job, Reply):
                time.sleep(job.delay)
                sock.sendall(proto.respond(rid, job.payload))
            elif isinstance(job, WordStream):
                for index in range(job.count):
                    if index and job.wait:
                        time.sleep(job.wait)
                    sock.sendall(proto.stream_item(rid, job.item(index)))
                sock.sendall(proto.stream_end(rid))
            ok = True
        finally:
            counters.request_finished(ok)


class _TCPServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.request_queue_size = config.backlog
        self._socks: set[socket.socket] = set()
        self._lock = threading.Lock()
        super().__init__((config.host, config.port), _Handler)

    def track(self, sock: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._socks.add(sock)
            else:
                self._socks.discard(sock)

    def shutdown_connections(self) -> None:
        with self._lock:
            socks = list(self._socks)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class ThreadedServer:
    """Serve on background threads until ``stop()``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._server: _TCPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> int:
        raise_fd_limit()
        self._server = _TCPServer(self.config)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
            name="dualio-threaded-server", daemon=True,
        )
        self._thread.start()
        port: int = self._server.server_address[1]
        return port

    def stop(self) -> None:
        if self._server is None or self._thread is None:
            return
        self._server.shutdown()
        self._server.shutdown_connections()
        self._server.server_close()
        self._thread.join()
        self._server = None
