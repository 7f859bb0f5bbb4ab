"""The connection of a blocking face, whatever its protocol: checking the transport
chosen, connecting on that transport, reconnecting (in a forked child too), and closing.
``Client`` (dualio's protocol) and ``dualio_sync.redis.Redis`` are each this plus their
methods and constructor."""

from __future__ import annotations

import itertools
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, Literal, Self, cast

from dualio_sync.face_calls import Calls
from dualio_transports import forks
from dualio_transports.blocking.connection import BlockingConnection
from dualio_transports.blocking.dialing import Connecting
from dualio_transports.interface import BlockingTransport
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.policy.events import (
    RequestCallback,
    ResponseCallback,
    StateCallback,
)
from dualio_transports.policy.held_connections import HELD_CONNECTIONS, check_held_connections
from dualio_transports.policy.lifecycle import Lifecycle
from dualio_transports.policy.retry import DEFAULT_RETRY, RetryPolicy, check_policy
from dualio_transports.policy.timeouts import check_timeout
from dualio_transports.wire.deadline import NO_DEADLINE, seconds_left
from dualio_transports.wire.errors import UsageError

if TYPE_CHECKING:
    from dualio_transports.portal.connection import PortalConnection

TransportName = Literal["blocking", "portal"]
"""How a blocking face's calls wait: ``"blocking"`` (the default) reads and writes the
socket from the calling threads, with no thread of its own; ``"portal"`` runs the native
asyncio transport on an event loop thread that every portal client of the process
shares, and every call hops to that thread and back (docs/architecture.md)."""
_TRANSPORTS = ("blocking", "portal")


def check_transport(transport: object) -> None:
    """TypeError or ValueError unless ``transport`` names a blocking face's transport."""
    if not isinstance(transport, str):
        raise TypeError(f"transport must be a str, one of {_TRANSPORTS}, not {type(transport).__name__}")
    if transport not in _TRANSPORTS:
        raise ValueError(f"transport must be one of {_TRANSPORTS}, not {transport!r}")


class Face(Calls):
    """One connection of a blocking face, on the transport it chose (:data:`TransportName`),
    whatever its protocol (``options.protocol``), connected as it is made (``lazy=True``:
    by the first call) and closed by ``close()`` or ``with``. Share it between threads
    freely: calls from different threads are multiplexed on the connection. In a process
    forked from the one that made it, it opens its own connection and never touches the
    parent's. A face of a protocol subclasses it, adds its methods over :meth:`request`
    and :meth:`stream`, and hands its :class:`ConnectOptions` and the settings below to
    this constructor (docs/extending.md); they mean what they mean on the async face."""

    def __init__(
        self,
        options: ConnectOptions,
        *,
        timeout: float | None = 30.0,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        lazy: bool = False,
        on_state: StateCallback | None = None,
        on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None,
        transport: TransportName = "blocking",
        held_connections: int = HELD_CONNECTIONS,
    ) -> None:
        if not isinstance(options, ConnectOptions):
            raise TypeError(f"options must be a ConnectOptions, not {type(options).__name__}")
        check_transport(transport)
        timeout = check_timeout("timeout", timeout)
        self.transport = transport
        self.held_connections = check_held_connections(held_connections)
        self._held = _Held(held_connections)
        self.host = options.host
        self.port = options.port
        self.timeout = timeout
        self._options = options
        self.retry = check_policy(retry)
        self.on_request = on_request
        self.on_response = on_response
        self._call_numbers = itertools.count(1)
        self._life = Lifecycle(f"{options.host}:{options.port}", on_state)
        self._lock = threading.Lock()  # one thread (re)connects at a time
        self._lock_born = forks.generation
        self._conn: BlockingConnection | PortalConnection | None = None
        self._born = forks.generation
        self._closing = threading.Lock()  # taken once, by the first close(), never released
        self._connecting: Connecting | None = None  # close() stops it
        if not lazy:
            self._conn = self._attempt(NO_DEADLINE)
            self._life.connected()

    # -- lifetime ---------------------------------------------------------------

    def open(self) -> Self:
        """Nothing to do: a blocking face connects as it is made (``lazy=True``: by its first
        call). There so that code written for both faces reads the same."""
        return self

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
        for held in self._held.take_all():
            held.close()
        self._life.closed()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<{type(self).__name__} {self.host}:{self.port} {state}>"

    # -- the connection, for the calls (dualio_sync/face_calls.py) -----------------

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
        """The face's connection; in a process forked from the one that made it, none
        (the parent's socket is let go of, never read, written or shut down here)."""
        conn = self._conn
        if conn is not None and self._born != forks.generation:
            conn.forget()
            self._conn = conn = None
            self._life.dropped()
        if self._born != forks.generation and self.retry is None:
            name = type(self).__name__
            raise UsageError(
                f"this {name} was made before os.fork() and retry=None forbids a new "
                f"connection: make a new {name} in the child"
            )
        return conn

    def _attempt(self, until: float) -> BlockingConnection | PortalConnection:
        """One connect, by ``until`` (the transport that connects makes it ``connect_timeout``
        from now at the latest), which close() stops."""
        connecting = self._connecting = Connecting()
        try:
            self._life.check_open()  # after publishing the attempt: close() stops it, or this sees it
            self._life.connecting()
            self._options = self.locate_server(self._options, until)
            conn = self._connect_transport(until, connecting)
        finally:
            self._connecting = None
        self._born = forks.generation
        return conn

    def _discard(self, conn: BlockingTransport) -> None:
        conn.close()

    def _connect_transport(
        self, until: float, connecting: Connecting | None = None
    ) -> BlockingConnection | PortalConnection:
        options = self._options
        conn: BlockingConnection | PortalConnection
        if self.transport == "portal":
            from dualio_transports.portal.connection import PortalConnection  # asyncio: only when asked for

            conn = PortalConnection.connect(options, until, connecting)
        else:
            conn = BlockingConnection.connect(options, until, connecting)
        return conn

    # -- connections for commands the server holds (dualio_sync/face_calls.py) ----------

    def _take_held_slot(self, until: float) -> bool:
        left = seconds_left(until)
        return self._held.this_process().slots.acquire(timeout=-1 if left is None else max(left, 0))

    def _give_held_slot(self) -> None:
        self._held.this_process().slots.release()

    def _idle_held(self) -> BlockingTransport | None:
        return self._held.this_process().idle()

    def _open_held(self, until: float) -> BlockingTransport:
        self._check_thread()
        self._life.check_open()
        self._options = self.locate_server(self._options, until)
        conn = self._connect_transport(until)
        held = self._held.this_process()
        with held.mutex:
            if not self._life.closed_by_user:
                held.open.add(conn)
                return conn
        conn.close()  # the client was closed while it connected
        raise self._life.closed_meanwhile()

    def _keep_held(self, conn: BlockingTransport) -> None:
        held = self._held.this_process()
        with held.mutex:
            if conn in held.open:
                held.free.append(conn)

    def _drop_held(self, conn: BlockingTransport) -> None:
        held = self._held.this_process()
        with held.mutex:
            held.open.discard(conn)
        conn.close()


class _Held:
    """A blocking face's connections for held commands, of the process that made them: in
    a forked child they are let go of (never read, written or shut down) and a new set begins."""

    __slots__ = ("born", "count", "free", "mutex", "open", "slots")

    def __init__(self, count: int) -> None:
        self.count = count
        self.free: list[BlockingTransport] = []
        self.open: set[BlockingTransport] = set()
        self._begin()

    def _begin(self) -> None:
        self.born = forks.generation
        self.slots = threading.BoundedSemaphore(self.count)
        self.mutex = threading.Lock()
        self.free.clear()
        self.open.clear()

    def this_process(self) -> _Held:
        if self.born != forks.generation:
            with forks.replacing:
                if self.born != forks.generation:
                    for conn in self.open:
                        cast("BlockingConnection | PortalConnection", conn).forget()
                    self._begin()
        return self

    def idle(self) -> BlockingTransport | None:
        with self.mutex:
            while self.free:
                conn = self.free.pop()
                if not conn.closed:
                    return conn
                self.open.discard(conn)
        return None

    def take_all(self) -> list[BlockingTransport]:
        """Every connection of this process, to close; none is kept from here on."""
        held = self.this_process()
        with held.mutex:
            every = [*held.open]
            held.open.clear()
            held.free.clear()
        return every

