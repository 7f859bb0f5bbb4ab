"""The blocking face: ``with Client(host, port) as c: c.echo(b"hi")``."""

from __future__ import annotations

import ssl
from types import TracebackType

from dualio_sync.service_methods import ServiceMethods
from transports.blocking.connection import BlockingConnection
from transports.interface import BlockingTransport
from transports.wire.connect_options import ConnectOptions
from transports.wire.errors import ClosedError
from transports.wire.frames import DEFAULT_MAX_FRAME_SIZE
from transports.wire.timeouts import check_timeout


class Client(ServiceMethods):
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
        server_hostname: str | None = None,
        token: str | None = None,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    ) -> None:
        self.host = host
        self.port = port
        self.timeout = check_timeout("timeout", timeout)
        options = ConnectOptions(host, port, connect_timeout, tls, server_hostname, token, max_frame_size)
        self._conn: BlockingConnection | None = BlockingConnection.connect(options)

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

    def _live_transport(self) -> BlockingTransport:
        conn = self._conn
        if conn is None:
            raise ClosedError("the client is closed")
        return conn
