"""The connection of an async face, whatever its protocol: checking the transport chosen,
opening, (re)connecting on that transport, and closing. ``AsyncClient`` (dualio's
protocol) and ``dualio.redis.Redis`` are each this plus their methods and constructor."""

from __future__ import annotations

import itertools
from asyncio import _get_running_loop  # asyncio.events.__all__: None outside a loop, no raise
from concurrent.futures import Executor
from types import TracebackType
from typing import Literal, Self, TypedDict, Unpack

import anyio

from dualio.face_calls import AsyncCalls
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
from dualio_transports.policy.held_connections import HELD_CONNECTIONS, check_held_connections
from dualio_transports.policy.lifecycle import Lifecycle
from dualio_transports.policy.retry import DEFAULT_RETRY, RetryPolicy, check_policy
from dualio_transports.policy.timeouts import check_timeout
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire.deadline import NO_DEADLINE, on_clock
from dualio_transports.wire.errors import UsageError

TransportName = Literal["native", "anyio", "emulated"]
"""How an async face's calls wait: ``"native"`` (the default) through non-blocking
sockets on the running loop, the ``asyncio.Protocol`` fast path on asyncio and uvloop
and the anyio transport on trio; ``"anyio"``, the anyio transport on either loop;
``"emulated"``, the blocking transport driven from worker threads (:class:`AsyncOnly`)."""

_TRANSPORTS = ("native", "anyio", "emulated")


class AsyncOnly(TypedDict, total=False):
    """The arguments only an async face's constructor takes, all of them for
    ``transport="emulated"``: ``emulation`` is how a blocking call is made awaitable
    (``"pool"``, the default: a pooled worker per call; ``"thread"``: a thread per call;
    ``"callback"``: a worker writes, the connection's reader thread answers; see
    docs/architecture.md), ``max_workers`` sizes a pool of the client's own, ``executor``
    supplies one (by default the loop's default executor, ``min(32, cpu + 4)`` workers)."""

    emulation: Strategy
    max_workers: int | None
    executor: Executor | None


def check_transport(transport: object, **async_only: Unpack[AsyncOnly]) -> None:
    """TypeError or ValueError unless ``transport`` names an async face's transport and
    the emulation's settings fit it."""
    if not isinstance(transport, str):
        raise TypeError(f"transport must be a str, one of {_TRANSPORTS}, not {type(transport).__name__}")
    if transport not in _TRANSPORTS:
        raise ValueError(f"transport must be one of {_TRANSPORTS}, not {transport!r}")
    max_workers, executor = async_only.get("max_workers"), async_only.get("executor")
    check_emulation(async_only.get("emulation", "pool"), max_workers, executor)
    if transport != "emulated" and (max_workers is not None or executor is not None):
        raise ValueError("max_workers and executor apply to transport='emulated' only")


class AsyncFace(AsyncCalls):
    """One connection of an async face, on the transport it chose (:data:`TransportName`),
    whatever its protocol (``options.protocol``).

    Open it with ``async with`` (or ``await client.open()`` and ``await client.aclose()``)
    in one task; use it from any task on that loop. A face of a protocol subclasses it,
    adds its methods over :meth:`request` and :meth:`stream`, and hands its
    :class:`ConnectOptions` and the settings below to this constructor (docs/extending.md).
    ``timeout`` is every call's default (None: no limit); ``retry`` how lost connections
    are opened again and safe requests sent again (None: never); ``lazy=True`` connects on
    the first call instead of at opening; ``held_connections`` bounds the connections of
    requests the server holds and of :meth:`dedicated` blocks; docs/api.md says what the
    hooks hear."""

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
        transport: TransportName = "native",
        held_connections: int = HELD_CONNECTIONS,
        **async_only: Unpack[AsyncOnly],
    ) -> None:
        if not isinstance(options, ConnectOptions):
            raise TypeError(f"options must be a ConnectOptions, not {type(options).__name__}")
        check_transport(transport, **async_only)
        self._options = options
        self.retry = check_policy(retry)
        self.on_request = on_request
        self.on_response = on_response
        self._call_numbers = itertools.count(1)
        self._lazy = lazy
        self._life = Lifecycle(f"{options.host}:{options.port}", on_state)
        self._lock: anyio.Lock | None = None  # one task (re)connects at a time; made when first needed
        self._loop: LoopHandle | None = None
        self._connecting: anyio.CancelScope | None = None
        self.host = options.host
        self.port = options.port
        self.timeout = check_timeout("timeout", timeout)
        self.connect_timeout = options.connect_timeout
        self.transport = transport
        self.emulation = async_only.get("emulation", "pool")
        self._max_workers = async_only.get("max_workers")
        self._executor = async_only.get("executor")
        self._conn: AsyncTransport | None = None
        self._opened = False
        self.held_connections = check_held_connections(held_connections)
        self._held_slots: anyio.Semaphore | None = None  # made when first needed, on the face's loop
        self._held_free: list[AsyncTransport] = []
        self._held_open: set[AsyncTransport] = set()

    # -- lifetime ---------------------------------------------------------------

    async def open(self) -> Self:
        """Connect and handshake (on the first call instead, with ``lazy=True``).
        ``async with`` does this for you."""
        loop = LoopHandle.current()  # a clear UsageError when no loop runs
        if self._opened:
            raise UsageError(f"this {type(self).__name__} was already opened; make a new one")
        self._opened = True
        self._loop = loop
        if not self._lazy:
            self._conn = await self._attempt(NO_DEADLINE)
            self._life.connected()
        return self

    async def _connect_transport(self, until: float) -> AsyncTransport:
        options = self._options
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
        held, self._held_free = [*self._held_open], []
        self._held_open.clear()
        for each in [conn, *held] if conn is not None else held:
            await each.aclose()
        self._life.closed()

    async def __aenter__(self) -> Self:
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
        return f"<{type(self).__name__} {self.host}:{self.port} {kind} {state}>"

    # -- the connection, for the calls (dualio/face_calls.py) ----------------------

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
            name = type(self).__name__
            raise UsageError(f"the client is not open: use 'async with {name}(...)'")
        self._life.check_open()
        assert self._loop is not None
        if not self._loop.is_current():
            raise UsageError(f"this {type(self).__name__} belongs to another event loop (or none is running)")

    async def _lock_reconnect(self, until: float) -> bool:
        lock = self._lock
        if lock is None:
            lock = self._lock = anyio.Lock()
        return await _acquire_by(lock, until)

    def _unlock_reconnect(self) -> None:
        assert self._lock is not None
        self._lock.release()

    def _kept_connection(self) -> AsyncTransport | None:
        return self._conn

    async def _attempt(self, until: float) -> AsyncTransport:
        """One connect, by ``until`` (the transport that connects makes it ``connect_timeout``
        from now at the latest), which aclose() stops."""
        fresh: AsyncTransport | None = None
        with anyio.CancelScope() as connecting:
            self._connecting = connecting  # aclose() cancels it
            try:
                self._life.connecting()
                self._options = await self.locate_server(self._options, until)
                fresh = await self._connect_transport(until)
            finally:
                self._connecting = None
        if fresh is None:  # cancelled by aclose()
            raise self._life.closed_meanwhile()
        return fresh

    async def _discard(self, conn: AsyncTransport) -> None:
        with anyio.CancelScope(shield=True):
            await conn.aclose()

    async def _take_held_slot(self, until: float) -> bool:
        slots = self._held_slots
        if slots is None:
            slots = self._held_slots = anyio.Semaphore(self.held_connections)
        return await _acquire_by(slots, until)

    def _give_held_slot(self) -> None:
        assert self._held_slots is not None
        self._held_slots.release()

    def _idle_held(self) -> AsyncTransport | None:
        free = self._held_free
        while free:
            conn = free.pop()
            if not conn.closed:
                return conn
            self._held_open.discard(conn)
        return None

    async def _open_held(self, until: float) -> AsyncTransport:
        self._life.check_open()
        self._options = await self.locate_server(self._options, until)
        conn = await self._connect_transport(until)
        if self._life.closed_by_user:  # closed while it connected: it is not kept
            await self._discard(conn)
            raise self._life.closed_meanwhile()
        self._held_open.add(conn)
        return conn

    def _keep_held(self, conn: AsyncTransport) -> None:
        if conn in self._held_open:
            self._held_free.append(conn)

    async def _drop_held(self, conn: AsyncTransport) -> None:
        self._held_open.discard(conn)
        await self._discard(conn)


async def _acquire_by(lock: anyio.Lock | anyio.Semaphore, until: float) -> bool:
    """Take ``lock`` by ``until``; False when that passed first."""
    with anyio.CancelScope(deadline=on_clock(until, anyio.current_time)) as waiting:
        await lock.acquire()
    return not waiting.cancelled_caught

