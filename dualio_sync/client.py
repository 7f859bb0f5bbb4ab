"""The blocking face: ``with Client(host, port) as c: c.echo(b"hi")``."""

from __future__ import annotations

import itertools
import ssl
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, Literal, cast

from dualio_sync.service_methods import ServiceMethods
from dualio_transports import forks
from dualio_transports.blocking.connection import BlockingConnection
from dualio_transports.blocking.dialing import Connecting
from dualio_transports.dualio_protocol.frames import DEFAULT_MAX_FRAME_SIZE
from dualio_transports.interface import BlockingTransport
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.policy.events import (
    RequestCallback,
    ResponseCallback,
    StateCallback,
)
from dualio_transports.policy.lifecycle import Lifecycle
from dualio_transports.policy.retry import DEFAULT_RETRY, RetryPolicy, check_policy
from dualio_transports.policy.timeouts import check_timeout
from dualio_transports.policy.url import FromUrl
from dualio_transports.wire.deadline import seconds_left
from dualio_transports.wire.errors import UsageError

if TYPE_CHECKING:
    from dualio_transports.portal.connection import PortalConnection

TransportName = Literal["blocking", "portal"]
_TRANSPORTS = ("blocking", "portal")


class Client(ServiceMethods, FromUrl):
    """A blocking client of the dualio service over one connection.

    Share one ``Client`` between threads freely: calls from different threads
    are multiplexed on the connection, each answered by request id. A call that
    times out raises :class:`~dualio_transports.wire.errors.DualioTimeout` and leaves the
    connection usable; its late answer is dropped.

    ``transport="blocking"`` (default) reads and writes the socket from the calling
    threads, with no thread of its own. ``transport="portal"`` runs the native asyncio
    transport on an event loop thread that every portal client of the process shares,
    and every call hops to that thread and back; see docs/architecture.md.

    ``timeout`` is the default for every call (``None``: wait forever); each
    method takes ``timeout=`` to override it for one call. For ``words`` it
    bounds the wait for each item.

    A lost connection is opened again by the next call, and calls that are safe
    to repeat are retried, as ``retry`` allows (``None``: never). ``lazy=True``
    connects on the first call instead of here. ``keepalive`` seconds of silence
    are checked with a PING. In a process forked from the one that made the
    client, the client opens its own connection and never touches the parent's.
    See docs/api.md for ``on_state``, ``on_request`` and ``on_response``.
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
        keepalive: float | None = 15.0,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        lazy: bool = False,
        on_state: StateCallback | None = None,
        on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None,
        transport: TransportName = "blocking",
    ) -> None:
        if not isinstance(transport, str):
            raise TypeError(f"transport must be a str, one of {_TRANSPORTS}, not {type(transport).__name__}")
        if transport not in _TRANSPORTS:
            raise ValueError(f"transport must be one of {_TRANSPORTS}, not {transport!r}")
        self.transport = transport
        self.host = host
        self.port = port
        self.timeout = check_timeout("timeout", timeout)
        self._options = ConnectOptions(
            host, port, connect_timeout, tls, server_hostname, token, max_frame_size, keepalive
        )
        self.retry = check_policy(retry)
        self.on_request = on_request
        self.on_response = on_response
        self._call_numbers = itertools.count(1)
        self._life = Lifecycle(f"{host}:{port}", on_state)
        self._lock = threading.Lock()  # one thread (re)connects at a time
        self._lock_born = forks.generation
        self._conn: BlockingConnection | PortalConnection | None = None
        self._born = forks.generation
        self._closing = threading.Lock()  # taken once, by the first close(), never released
        self._connecting: Connecting | None = None  # close() stops it
        if not lazy:
            self._conn = self._connect(self._options.connect_deadline())
            self._life.connected()

    # -- lifetime ---------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once closed, or when the connection has failed for good (it would not
        be opened again: ``retry=None``, or a failure that retrying cannot mend)."""
        return self._life.is_closed(self._conn, self.retry)

    def close(self) -> None:
        """Close the connection; calls still waiting raise ClosedError. Idempotent."""
        self._check_thread()
        if not self._closing.acquire(blocking=False):
            return
        self._life.closing()  # before looking at what a connecting thread published
        connecting = self._connecting
        if connecting is not None:
            connecting.stop()
        conn, self._conn = self._conn, None
        if conn is not None:
            if self._born == forks.generation:
                conn.close()
            else:
                conn.forget()
        self._life.closed()

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

    # -- the connection ---------------------------------------------------------

    def _ready_transport(self) -> BlockingTransport | None:
        conn = self._conn
        if conn is not None and not conn.closed and self._born == forks.generation:
            return conn
        return None

    def _pause(self, seconds: float) -> None:
        time.sleep(seconds)

    def _own_lock(self) -> threading.Lock:
        """The reconnect lock of this process: one inherited across fork() may be held by a
        thread that does not exist in the child, so the child makes its own."""
        if self._lock_born != forks.generation:
            with forks.replacing:
                if self._lock_born != forks.generation:
                    self._lock, self._lock_born = threading.Lock(), forks.generation
        return self._lock

    def _check_thread(self) -> None:
        """UsageError on the portal's own event loop thread, where waiting for the loop
        would wait for itself."""
        conn = self._conn
        if self.transport == "portal" and conn is not None and self._born == forks.generation:
            cast("PortalConnection", conn).check_thread()

    def _check_caller(self) -> None:
        self._check_thread()

    def _lock_reconnect(self, until: float) -> bool:
        left = seconds_left(until)
        return self._own_lock().acquire(timeout=-1 if left is None else max(left, 0))

    def _unlock_reconnect(self) -> None:
        self._own_lock().release()

    def _kept_connection(self) -> BlockingTransport | None:
        """The client's connection; in a process forked from the one that made it, none
        (the parent's socket is let go of, never read, written or shut down here)."""
        conn = self._conn
        if conn is not None and self._born != forks.generation:
            conn.forget()
            self._conn = conn = None
            self._life.dropped()
        if self._born != forks.generation and self.retry is None:
            raise UsageError(
                "this Client was made before os.fork() and retry=None forbids a new "
                "connection: make a new Client in the child"
            )
        return conn

    def _attempt(self, until: float) -> BlockingTransport:
        connecting = self._connecting = Connecting()
        try:
            self._life.check_open()  # after publishing the attempt: close() stops it, or this sees it
            return self._connect(until, connecting)
        finally:
            self._connecting = None

    def _discard(self, conn: BlockingTransport) -> None:
        conn.close()

    def _connect(
        self, until: float, connecting: Connecting | None = None
    ) -> BlockingConnection | PortalConnection:
        """One attempt, by ``until`` (:meth:`ConnectOptions.connect_deadline`)."""
        options = self._options
        self._life.connecting()
        conn: BlockingConnection | PortalConnection
        if self.transport == "portal":
            from dualio_transports.portal.connection import PortalConnection  # asyncio: only when asked for

            conn = PortalConnection.connect(options, until, connecting)
        else:
            conn = BlockingConnection.connect(options, until, connecting)
        self._born = forks.generation
        return conn
