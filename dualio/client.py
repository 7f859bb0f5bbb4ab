"""The async face: ``async with AsyncClient(host, port) as c: await c.echo(b"hi")``."""

from __future__ import annotations

import itertools
import ssl
from asyncio import _get_running_loop  # asyncio.events.__all__: None outside a loop, no raise
from concurrent.futures import Executor
from types import TracebackType
from typing import Literal

import anyio

from dualio.service_methods import AsyncServiceMethods
from dualio_transports.dualio_protocol.frames import DEFAULT_MAX_FRAME_SIZE
from dualio_transports.emulation.emulated_connection import EmulatedConnection, Strategy, check_emulation
from dualio_transports.interface import AsyncTransport
from dualio_transports.native.anyio_connection import AnyioConnection
from dualio_transports.native.asyncio_connection import AsyncioConnection
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
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire.deadline import on_clock
from dualio_transports.wire.errors import UsageError

TransportName = Literal["native", "anyio", "emulated"]
_TRANSPORTS = ("native", "anyio", "emulated")


class AsyncClient(AsyncServiceMethods, FromUrl):
    """An async client of the dualio service, on asyncio or trio.

    ``transport="native"`` (default) talks through non-blocking sockets on the
    running loop: the ``asyncio.Protocol`` fast path on asyncio and uvloop, the
    anyio transport on trio. ``transport="anyio"`` uses the anyio transport on
    either loop. ``transport="emulated"`` drives the blocking transport from
    worker threads, with ``emulation="pool" | "thread" | "callback"`` (see
    docs/architecture.md). ``max_workers`` sizes a pool of the client's own;
    ``executor`` supplies one; by default the loop's default executor is used
    (``min(32, cpu + 4)`` workers).

    Open it with ``async with`` (or ``await client.open()`` and
    ``await client.aclose()``) in one task; use it from any task on that loop.
    Method names, parameters and defaults are those of ``dualio_sync.Client``.
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
        transport: TransportName = "native",
        emulation: Strategy = "pool",
        max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> None:
        if transport not in _TRANSPORTS:
            raise ValueError(f"transport must be one of {_TRANSPORTS}, not {transport!r}")
        check_emulation(emulation, max_workers, executor)
        if transport != "emulated" and (max_workers is not None or executor is not None):
            raise ValueError("max_workers and executor apply to transport='emulated' only")
        self._options = ConnectOptions(
            host, port, connect_timeout, tls, server_hostname, token, max_frame_size, keepalive
        )
        self.retry = check_policy(retry)
        self.on_request = on_request
        self.on_response = on_response
        self._call_numbers = itertools.count(1)
        self._lazy = lazy
        self._life = Lifecycle(f"{host}:{port}", on_state)
        self._lock: anyio.Lock | None = None  # one task (re)connects at a time; made when first needed
        self._loop: LoopHandle | None = None
        self._connecting: anyio.CancelScope | None = None
        self.host = host
        self.port = port
        self.timeout = check_timeout("timeout", timeout)
        self.connect_timeout = self._options.connect_timeout
        self.transport = transport
        self.emulation = emulation
        self._max_workers = max_workers
        self._executor = executor
        self._conn: AsyncTransport | None = None
        self._opened = False

    # -- lifetime ---------------------------------------------------------------

    async def open(self) -> AsyncClient:
        """Connect and handshake (on the first call instead, with ``lazy=True``).
        ``async with`` does this for you."""
        loop = LoopHandle.current()  # a clear UsageError when no loop runs
        if self._opened:
            raise UsageError("this AsyncClient was already opened; make a new one")
        self._opened = True
        self._loop = loop
        if not self._lazy:
            self._conn = await self._connect(self._options.connect_deadline())
            self._life.connected()
        return self

    async def _connect(self, until: float) -> AsyncTransport:
        """One attempt, by ``until`` (:meth:`ConnectOptions.connect_deadline`)."""
        options = self._options
        self._life.connecting()
        conn: AsyncTransport
        if self.transport == "emulated":
            conn = await EmulatedConnection.connect(
                options, until, strategy=self.emulation, max_workers=self._max_workers,
                executor=self._executor,
            )
        elif self.transport == "native" and self._loop is not None and self._loop.backend == "asyncio":
            conn = await AsyncioConnection.connect(options, until)
        else:
            conn = await AnyioConnection.connect(options, until)
        return conn

    @property
    def closed(self) -> bool:
        """True once closed (or never opened), or when the connection has failed for
        good (it would not be opened again: ``retry=None``, or a failure that retrying
        cannot mend)."""
        return not self._opened or self._life.is_closed(self._conn, self.retry)

    async def aclose(self) -> None:
        """Close the connection; calls still waiting raise ClosedError. Idempotent."""
        if self._life.closed_by_user:
            return
        self._life.closing()
        if self._connecting is not None:
            self._connecting.cancel()
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.aclose()
        self._life.closed()

    async def __aenter__(self) -> AsyncClient:
        if self._conn is not None:  # opened with ``await client.open()`` already
            return self
        return await self.open()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        kind = f"emulated/{self.emulation}" if self.transport == "emulated" else self.transport
        return f"<AsyncClient {self.host}:{self.port} {kind} {state}>"

    def _ready_transport(self) -> AsyncTransport | None:
        conn = self._conn
        if conn is not None and not conn.closed:
            loop = conn.loop
            running = _get_running_loop()  # asyncio's, checked first
            if running is loop.loop or (
                running is None and loop.backend == "trio" and loop.is_current_trio()
            ):
                return conn
        return None

    async def _pause(self, seconds: float) -> None:
        await anyio.sleep(seconds)

    def _check_caller(self) -> None:
        if not self._opened:
            raise UsageError("the client is not open: use 'async with AsyncClient(...)'")
        self._life.check_open()
        assert self._loop is not None
        if not self._loop.is_current():
            raise UsageError("this AsyncClient belongs to another event loop (or none is running)")

    async def _lock_reconnect(self, until: float) -> bool:
        lock = self._lock
        if lock is None:
            lock = self._lock = anyio.Lock()
        with anyio.CancelScope(deadline=on_clock(until, anyio.current_time)) as waiting:
            await lock.acquire()
        return not waiting.cancelled_caught

    def _unlock_reconnect(self) -> None:
        assert self._lock is not None
        self._lock.release()

    def _kept_connection(self) -> AsyncTransport | None:
        return self._conn

    async def _attempt(self, until: float) -> AsyncTransport:
        fresh: AsyncTransport | None = None
        with anyio.CancelScope() as connecting:
            self._connecting = connecting  # aclose() cancels it
            try:
                fresh = await self._connect(until)
            finally:
                self._connecting = None
        if fresh is None:  # cancelled by aclose()
            raise self._life.closed_meanwhile()
        return fresh

    async def _discard(self, conn: AsyncTransport) -> None:
        with anyio.CancelScope(shield=True):
            await conn.aclose()
