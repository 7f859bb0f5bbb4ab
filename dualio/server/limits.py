"""Process limits a server of many connections needs raised, and what the server does
when it meets one: back off from accept() and say so once, not once per retry."""

from __future__ import annotations

import errno
import logging
import socket

try:
    import resource
except ImportError:  # not on Windows: the open-files limit is then left as it is
    resource = None  # type: ignore[assignment]

from dualio.server.config import ServerConfig
from dualio.server.service import Counters
from dualio_transports.wire.errors import ErrorCode
from dualio_transports.wire.server_protocol import ServerProtocol

log = logging.getLogger("dualio.server")

RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""accept() failed for want of a process or system resource: retrying at once would spin."""
PEER_ERRNOS = frozenset({errno.ECONNABORTED, errno.EPROTO, errno.EPERM, errno.EINTR, errno.EAGAIN})
"""accept() failed because of that one connection: go on with the next."""
LOG_INTERVAL = 5.0
"""At most one log line per this many seconds for each kind of repeated trouble."""


def raise_fd_limit() -> int:
    """Raise the soft open-files limit to the hard limit; returns the new soft limit
    (-1 where the OS has no such limit to read)."""
    if resource is None:
        return -1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


class Throttle:
    """``ready(now)``: True at most once per ``interval``; ``suppressed`` says how many
    calls were refused since the last True."""

    def __init__(self, interval: float = LOG_INTERVAL) -> None:
        self.interval = interval
        self._last = -interval - 1.0
        self._count = 0
        self.suppressed = 0

    def ready(self, now: float) -> bool:
        if now - self._last < self.interval:
            self._count += 1
            return False
        self.suppressed, self._count, self._last = self._count, 0, now
        return True


class AcceptBackoff:
    """Out of file descriptors (or buffers), accept() fails at once and the listening socket
    stays readable: retrying at once is a busy loop. Wait 0.1 s, doubling to 1 s while it
    lasts; one log line per LOG_INTERVAL, naming the open-files limit."""

    FIRST = 0.1
    LAST = 1.0

    def __init__(self) -> None:
        self.delay = 0.0
        self._log = Throttle()

    def failed(self, exc: OSError, now: float) -> float:
        """Seconds to wait before the next accept()."""
        self.delay = min(self.LAST, self.delay * 2) if self.delay else self.FIRST
        if self._log.ready(now):
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0] if resource is not None else -1
            log.error("accept paused %.1fs: %s (open-files limit %d; %d similar errors not shown)",
                      self.delay, exc.strerror or exc, soft, self._log.suppressed)
        return self.delay

    def succeeded(self) -> None:
        self.delay = 0.0


class BusyLog:
    """One line per LOG_INTERVAL while connections are refused at the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._log = Throttle()

    def refused(self, now: float) -> None:
        if self._log.ready(now):
            log.warning("connection limit %d reached: refusing new connections with BUSY "
                        "(%d more refused since the last line)", self.limit, self._log.suppressed)


def busy_refusal(counters: Counters) -> bytes:
    """ERROR id 0 BUSY, made (and so counted) by ServerProtocol like every ERROR frame."""
    proto = ServerProtocol(on_error=counters.error)
    proto.fail_connection(ErrorCode.BUSY, "connection limit reached")
    return proto.take_output()


def refuse_socket(sock: socket.socket, refusal: bytes) -> None:
    """Send ``refusal`` on a freshly accepted socket without blocking, then close it.

    What the peer already sent (its HELLO) is read and dropped first, so the close is
    a FIN after the refusal, not a reset that could destroy it in the peer's buffer.
    """
    try:
        sock.setblocking(False)
        if refusal:
            sock.send(refusal)
        sock.shutdown(socket.SHUT_WR)
        sock.recv(65536)
    except OSError:
        pass
    finally:
        sock.close()


def listen(host: str, port: int, backlog: int | None, *,
           reuse_port: bool = False) -> list[socket.socket]:
    """Listening sockets for every address ``host`` resolves to (as asyncio's create_server).

    ``reuse_port``: bind with SO_REUSEPORT, so the sockets of other processes can listen on
    the same port (Linux then spreads connections among them); every address gets the port
    the first one was given, even with ``port`` 0. ``backlog`` None: bound, not listening —
    a reservation that keeps the port while the processes serving it come and go.
    """
    infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    socks: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _, address in infos:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                if len(socks) > 1:
                    address = (address[0], socks[0].getsockname()[1], *address[2:])
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                raise OSError(exc.errno, f"error while attempting to bind on address {address!r}: "
                                         f"{exc.strerror}") from None
            if backlog is not None:
                sock.listen(backlog)
    except BaseException:
        for sock in socks:
            sock.close()
        raise
    return socks


def listeners(config: ServerConfig) -> list[socket.socket]:
    """The sockets a server accepts from: ``config.listening_sockets`` (made by the process
    that forked this one), or new ones bound to ``config.host`` and ``config.port``."""
    if config.listening_sockets:
        return list(config.listening_sockets)
    return listen(config.host, config.port, config.backlog, reuse_port=config.reuse_port)
