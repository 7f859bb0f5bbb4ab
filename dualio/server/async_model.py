"""The asyncio server model: one process, one event loop, any number of connections."""

from __future__ import annotations

import asyncio
import errno
import functools
import logging
import resource
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field

from dualio.server.limits import raise_fd_limit
from dualio.server.service import Counters, Reply, UnknownMethod, WordStream, plan
from transports.wire import methods
from transports.wire.errors import ErrorCode
from transports.wire.frames import DEFAULT_MAX_FRAME_SIZE
from transports.wire.server_protocol import Cancel, Request, ServerProtocol

log = logging.getLogger("dualio.server")


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 7878
    token: str | None = None
    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE
    handshake_timeout: float = 10.0
    backlog: int = 4096
    tls: ssl.SSLContext | None = None
    counters: Counters = field(default_factory=Counters)


class _Connection(asyncio.Protocol):
    def __init__(self, config: ServerConfig, on_lost: Callable[[_Connection], None]) -> None:
        self._config = config
        self._on_lost = on_lost
        self._counters = config.counters
        self._proto = ServerProtocol(token=config.token, max_frame_size=config.max_frame_size)
        self._tasks: dict[int, asyncio.Task[bool]] = {}
        self._transport: asyncio.Transport | None = None
        self._peer = "?"
        self._handshake_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._counters.connection_opened()
        self._peer = _peer_name(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        loop = asyncio.get_running_loop()
        self._handshake_timer = loop.call_later(self._config.handshake_timeout, self._no_hello)

    def _no_hello(self) -> None:
        if not self._proto.handshaken and self._transport is not None:
            log.warning("%s: no HELLO within %.1fs, closing", self._peer,
                        self._config.handshake_timeout)
            self._transport.abort()

    def data_received(self, data: bytes) -> None:
        try:
            events = self._proto.receive(data)
            self._write(self._proto.take_output())
            for event in events:
                if isinstance(event, Request):
                    self._start(event)
                elif isinstance(event, Cancel):
                    task = self._tasks.get(event.id)
                    if task is not None:
                        task.cancel()
            if self._proto.handshaken and self._handshake_timer is not None:
                self._handshake_timer.cancel()
                self._handshake_timer = None
            if self._proto.closing:
                self._close(self._proto.close_reason)
        except Exception:  # a bug must cost one connection, never the server
            log.exception("%s: internal error, closing the connection", self._peer)
            self._counters.error()
            self._close("internal error")

    def _close(self, reason: str) -> None:
        if reason != "client closed":
            self._counters.error()
            log.warning("%s: closing connection: %s", self._peer, reason)
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()

    def _write(self, data: bytes) -> None:
        if data and self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def _start(self, request: Request) -> None:
        rid = request.id
        try:
            job = plan(request.method, request.args, self._counters, self._config.max_frame_size)
        except UnknownMethod as exc:
            self._refuse(rid, ErrorCode.UNKNOWN_METHOD, str(exc))
            return
        except methods.BadArguments as exc:
            self._refuse(rid, ErrorCode.BAD_ARGUMENTS, str(exc))
            return
        self._counters.request_started()
        if isinstance(job, Reply) and job.delay == 0:
            self._write(self._proto.respond(rid, job.payload))
            self._counters.request_finished(ok=True)
            return
        coro = self._reply_later(rid, job) if isinstance(job, Reply) else self._stream(rid, job)
        task = asyncio.get_running_loop().create_task(coro)
        task.add_done_callback(functools.partial(self._finished, rid))
        self._tasks[rid] = task

    def _refuse(self, rid: int, code: ErrorCode, message: str) -> None:
        self._counters.error()
        log.warning("%s: request %d refused: %s: %s", self._peer, rid, code.name, message)
        self._write(self._proto.fail(rid, code, message))

    def _finished(self, rid: int, task: asyncio.Task[bool]) -> None:
        """Every started request ends here, even one cancelled before its task ran."""
        self._tasks.pop(rid, None)
        cancelled = task.cancelled()
        if not cancelled and task.exception() is not None:
            log.error("%s: request %d failed", self._peer, rid, exc_info=task.exception())
            self._write(self._proto.fail(rid, ErrorCode.INTERNAL, "internal error"))
        elif cancelled and rid in self._proto.open_ids:
            self._write(self._proto.fail(rid, ErrorCode.CANCELLED, "cancelled by the client"))
        self._counters.request_finished(ok=not cancelled and task.exception() is None and task.result())

    async def _reply_later(self, rid: int, reply: Reply) -> bool:
        await asyncio.sleep(reply.delay)
        self._write(self._proto.respond(rid, reply.payload))
        return True

    async def _stream(self, rid: int, stream: WordStream) -> bool:
        for index in range(stream.count):
            if index and stream.wait:
                await asyncio.sleep(stream.wait)
            if self._transport is None or self._transport.is_closing():
                return False
            self._write(self._proto.stream_item(rid, stream.item(index)))
        self._write(self._proto.stream_end(rid))
        return True

    def pause_writing(self) -> None:
        if self._transport is not None:
            self._transport.pause_reading()

    def resume_writing(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._handshake_timer is not None:
            self._handshake_timer.cancel()
        if self._tasks:
            log.warning("%s: connection lost with %d requests in flight", self._peer,
                        len(self._tasks))
        elif self._proto.buffered and not self._proto.closing:
            log.warning("%s: connection ended in the middle of a frame (%d bytes)", self._peer,
                        self._proto.buffered)
        for task in list(self._tasks.values()):
            task.cancel()
        self._transport = None
        self._counters.connection_closed()
        self._on_lost(self)

    def goodbye(self) -> None:
        """Server shutdown: tell the client, then close."""
        self._write(self._proto.goodbye())
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()


def _peer_name(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return str(peer)


class _OneLineResourceErrors:
    """asyncio reports every failed accept() with a traceback; out of file descriptors,
    that is one per retry. Say it in one line, at most every few seconds."""

    INTERVAL = 5.0

    def __init__(self, previous: Callable[[asyncio.AbstractEventLoop, dict[str, object]], object] | None):
        self._previous = previous
        self._last = -self.INTERVAL
        self._suppressed = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS,
                                                      errno.ENOMEM):
            now = loop.time()
            if now - self._last < self.INTERVAL:
                self._suppressed += 1
                return
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            log.error("accept paused: %s (open-files soft limit %d; %d similar errors not shown)",
                      exc.strerror, soft, self._suppressed)
            self._last, self._suppressed = now, 0
            return
        if self._previous is not None:
            self._previous(loop, context)
        else:
            loop.default_exception_handler(context)


class AsyncServer:
    """Serve until ``stop()``; ``start()`` binds and returns the bound port."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._server: asyncio.Server | None = None
        self._connections: set[_Connection] = set()

    @property
    def counters(self) -> Counters:
        return self.config.counters

    async def start(self) -> int:
        raise_fd_limit()
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_OneLineResourceErrors(loop.get_exception_handler()))

        def factory() -> _Connection:
            conn = _Connection(self.config, self._connections.discard)
            self._connections.add(conn)
            return conn

        self._server = await loop.create_server(
            factory, self.config.host, self.config.port,
            backlog=self.config.backlog, reuse_address=True, ssl=self.config.tls,
        )
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for conn in list(self._connections):
            conn.goodbye()
        self._connections.clear()
        await self._server.wait_closed()
        self._server = None
