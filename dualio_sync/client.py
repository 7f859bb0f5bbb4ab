"""The blocking face: ``with Client(host, port) as c: c.echo(b"hi")``."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from types import TracebackType
from typing import TypeVar

from transports.blocking.connection import BlockingConnection
from transports.wire import methods
from transports.wire.errors import ClosedError
from transports.wire.frames import DEFAULT_MAX_FRAME_SIZE
from transports.wire.methods import ServerStats
from transports.wire.timeouts import UNSET, Unset, check_timeout, pick_timeout

T = TypeVar("T")


class Client:
    """A blocking client of the dualio service over one connection.

    Share one ``Client`` between threads freely: calls from different threads
    are multiplexed on the connection, each answered by request id. A call that
    times out raises :class:`~transports.wire.errors.DualioTimeout` and leaves the
    connection usable; its late answer is dropped.

    ``timeout`` is the default for every call (``None``: wait forever); each
    method takes ``timeout=`` to override it for one call. For ``words`` it
    bounds the wait for each item.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 7878,
        *,
        timeout: float | None = 30.0,
        connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None,
        token: str | None = None,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    ) -> None:
        self.host = host
        self.port = port
        self.timeout = check_timeout("timeout", timeout)
        self._conn: BlockingConnection | None = BlockingConnection.connect(
            host,
            port,
            connect_timeout=check_timeout("connect_timeout", connect_timeout),
            tls=tls,
            token=token,
            max_frame_size=max_frame_size,
        )

    # -- service methods ------------------------------------------------------

    def echo(self, data: bytes, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> bytes:
        """``data`` back, after ``delay`` seconds on the server."""
        return self._call(methods.echo(data, delay), timeout)

    def upper(self, text: str, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> str:
        """``text`` upper-cased by the server, after ``delay`` seconds."""
        return self._call(methods.upper(text, delay), timeout)

    def sleep(self, seconds: float, *, timeout: float | Unset | None = UNSET) -> None:
        """Return after the server has waited ``seconds``."""
        return self._call(methods.sleep(seconds), timeout)

    def blob(
        self, size: int, *, seed: int = 0, verify: bool = True,
        timeout: float | Unset | None = UNSET,
    ) -> bytes:
        """``size`` bytes derived from ``seed``, checked on arrival when ``verify``."""
        return self._call(methods.blob(size, seed, verify), timeout)

    def words(
        self, count: int, wait: float = 0.0, *, timeout: float | Unset | None = UNSET
    ) -> Iterator[str]:
        """A stream of ``count`` words, one every ``wait`` seconds."""
        return self._connection().stream(methods.words(count, wait), pick_timeout(timeout, self.timeout))

    def stats(self, *, timeout: float | Unset | None = UNSET) -> ServerStats:
        """The server's counters."""
        return self._call(methods.stats(), timeout)

    def ping(self, *, timeout: float | Unset | None = UNSET) -> float:
        """Round-trip time to the server, in seconds."""
        return self._connection().ping(pick_timeout(timeout, self.timeout))

    def call(self, method: str, payload: bytes = b"", *, timeout: float | Unset | None = UNSET) -> bytes:
        """Call any method with raw argument bytes; returns the raw answer."""
        return self._call(methods.raw(method, payload), timeout)

    # -- lifetime ---------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._conn is None or self._conn.closed

    def close(self) -> None:
        """Close the connection; calls still waiting raise ClosedError. Idempotent."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<Client {self.host}:{self.port} {state}>"

    def _connection(self) -> BlockingConnection:
        conn = self._conn
        if conn is None:
            raise ClosedError("the client is closed")
        return conn

    def _call(self, op: methods.Call[T], timeout: float | Unset | None) -> T:
        return self._connection().call(op, pick_timeout(timeout, self.timeout))
