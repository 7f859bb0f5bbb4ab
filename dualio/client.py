"""The async face: ``async with AsyncClient(host, port) as c: await c.echo(b"hi")``."""

from __future__ import annotations

import ssl
from concurrent.futures import Executor
from types import TracebackType
from typing import Literal

from dualio.service_methods import AsyncServiceMethods
from transports.emulation.emulated_connection import EmulatedConnection, Strategy
from transports.interface import AsyncTransport
from transports.native.anyio_connection import AnyioConnection
from transports.native.asyncio_connection import AsyncioConnection
from transports.running_loop import LoopHandle
from transports.wire.connect_options import ConnectOptions
from transports.wire.errors import ClosedError, UsageError
from transports.wire.frames import DEFAULT_MAX_FRAME_SIZE
from transports.wire.timeouts import check_timeout

TransportName = Literal["native", "anyio", "emulated"]
_TRANSPORTS = ("native", "anyio", "emulated")


class AsyncClient(AsyncServiceMethods):
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
        transport: TransportName = "native",
        emulation: Strategy = "pool",
        max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> None:
        if transport not in _TRANSPORTS:
            raise ValueError(f"transport must be one of {_TRANSPORTS}, not {transport!r}")
        if emulation not in ("pool", "thread", "callback"):
            raise ValueError(f"emulation must be 'pool', 'thread' or 'callback', not {emulation!r}")
        if max_workers is not None and (
            isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1
        ):
            raise ValueError(f"max_workers must be an int >= 1, got {max_workers!r}")
        if max_workers is not None and executor is not None:
            raise ValueError("give max_workers or executor, not both")
        if transport != "emulated" and (max_workers is not None or executor is not None):
            raise ValueError("max_workers and executor apply to transport='emulated' only")
        self._options = ConnectOptions(
            host, port, connect_timeout, tls, server_hostname, token, max_frame_size
        )
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
        """Connect and handshake. ``async with`` does this for you."""
        LoopHandle.current()  # a clear UsageError when no loop runs
        if self._opened:
            raise UsageError("this AsyncClient was already opened; make a new one")
        self._opened = True
        self._conn = await self._connect(LoopHandle.current().backend)
        return self

    async def _connect(self, backend: str) -> AsyncTransport:
        if self.transport == "emulated":
            return await EmulatedConnection.connect(
                self._options, strategy=self.emulation, max_workers=self._max_workers,
                executor=self._executor,
            )
        if self.transport == "native" and backend == "asyncio":
            return await AsyncioConnection.connect(self._options)
        return await AnyioConnection.connect(self._options)

    @property
    def closed(self) -> bool:
        return self._conn is None or self._conn.closed

    async def aclose(self) -> None:
        """Close the connection; calls still waiting raise ClosedError. Idempotent."""
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.aclose()

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

    def _live_transport(self) -> AsyncTransport:
        conn = self._conn
        if conn is None:
            if not self._opened:
                raise UsageError("the client is not open: use 'async with AsyncClient(...)'")
            raise ClosedError("the client is closed")
        if not conn.loop.is_current():
            raise UsageError("this AsyncClient belongs to another event loop (or none is running)")
        return conn
