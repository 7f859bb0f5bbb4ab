"""Dialing for the blocking transport: a TCP (and TLS) socket within a deadline, which
another thread may stop (``Client.close()`` while it connects)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.wire.deadline import seconds_left
from dualio_transports.wire.errors import ClosedError


class Connecting:
    """A connect in progress that another thread may stop (``Client.close()``).

    Stopping shuts the attempt's socket down, which wakes the connecting thread at
    once in every phase (TCP connect, TLS handshake, HELLO/WELCOME); the attempt then
    fails with ClosedError. A blocking call cannot be interrupted otherwise.
    """

    __slots__ = ("_lock", "_on_stop", "_sock", "stopped")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._on_stop: Callable[[], object] | None = None
        self.stopped = False

    def on_stop(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` when the attempt is stopped (at once, if it has been): for a
        connect that waits on something other than its socket."""
        with self._lock:
            self._on_stop = callback
            stopped = self.stopped
        if stopped:
            callback()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            stopped = self.stopped
        if stopped:
            _shutdown(sock)

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            sock, callback = self._sock, self._on_stop
        if sock is not None:
            _shutdown(sock)
        if callback is not None:
            callback()

    def check(self) -> None:
        if self.stopped:
            raise ClosedError("the client was closed while it connected")


def _shutdown(sock: socket.socket) -> None:
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the descriptor's, past any TLS layer
    except OSError:
        pass


def open_socket(options: ConnectOptions, until: float, attempt: Connecting) -> socket.socket:
    """A connected TCP (and TLS) socket, like ``socket.create_connection`` but stoppable
    through ``attempt``."""
    if options.unix_path is not None:
        return _open_unix(options.unix_path, until, attempt)
    errors: list[OSError] = []
    for family, kind, proto, _, address in socket.getaddrinfo(
        options.host, options.port, 0, socket.SOCK_STREAM
    ):
        left = seconds_left(until)
        if left is not None and left <= 0:
            raise TimeoutError
        sock = socket.socket(family, kind, proto)
        try:
            attempt.watch(sock)
            sock.settimeout(left)
            sock.connect(address)
            attempt.check()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            if options.tls is None:
                return sock
            left = seconds_left(until)
            if left is not None and left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            tls = options.tls.wrap_socket(
                sock, server_hostname=options.tls_hostname, do_handshake_on_connect=False
            )
        except BaseException as exc:
            sock.close()
            attempt.check()
            if not isinstance(exc, OSError) or isinstance(exc, TimeoutError):
                raise
            errors.append(exc)
            continue
        try:
            attempt.watch(tls)
            tls.do_handshake()
            attempt.check()
        except BaseException:
            tls.close()
            raise
        return tls
    raise errors[0] if errors else OSError(f"no address found for {options.host}")


def _open_unix(path: str, until: float, attempt: Connecting) -> socket.socket:
    """A socket connected to the Unix socket at ``path``, stoppable through ``attempt``."""
    left = seconds_left(until)
    if left is not None and left <= 0:
        raise TimeoutError
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        attempt.watch(sock)
        sock.settimeout(left)
        sock.connect(path)
        attempt.check()
    except BaseException:
        sock.close()
        attempt.check()
        raise
    return sock
