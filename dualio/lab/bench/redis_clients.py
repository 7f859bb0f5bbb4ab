"""The columns of the lab's Redis scenario: dualio's Redis faces and the clients people
use instead, each opened as its documentation shows, against one redis-server; and
how each case runs on them.

Every client is reached through a handle of three calls (``get``, ``blpop``, close), so
one driver runs every case on every client. A handle's ``get`` is the client's own
bound method, so a GET costs what it costs a program calling the client directly. The
peers are imported only when a cell runs them, and a peer that is not installed is
skipped with the reason.
"""

from __future__ import annotations

import asyncio
import functools
import math
import socket
import struct
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, cast

from dualio import emulate_async
from dualio.lab.bench.modes import not_installed
from dualio.lab.bench.workloads import Outcome, Workload, drive_async, drive_threads, run_on
from dualio.redis import Redis as AsyncRedis
from dualio_sync import DualioTimeout
from dualio_sync.redis import Redis as BlockingRedis
from dualio_transports.emulation.adapter import default_workers

KEYS = 100
"""The keys the GET cases read (``lab:0`` to ``lab:99``), set before the first cell."""

R = TypeVar("R")

Case = Literal["get", "connect", "blpop"]
Model = Literal["coroutines", "pool", "threads", "one-connection", ""]
"""How a mode's fan-out of N calls that the server holds Y seconds is modelled:
``coroutines`` Y + N·c, ``pool`` ceil(N/W)·Y, ``threads`` F + N·c (F: the thread
floor), ``one-connection`` N·Y (the server serves one connection's commands in turn);
c is the mode's client CPU per connect+GET+close, as each held command opens a
connection of its own."""


def key_of(index: int) -> str:
    return f"lab:{index % KEYS}"


def value_of(index: int) -> bytes:
    """The 16-byte value of :func:`key_of` (``index``)."""
    return f"value-{index % KEYS:010d}".encode()


def empty_list(index: int) -> str:
    """A list that never has an item: BLPOP on it waits its whole ``wait``."""
    return f"lab:empty:{index}"


@dataclass(frozen=True)
class Opening:
    """How a case opens a client: where, each call's timeout, and how many connections
    it may need at once (a fan-out of N holds N)."""

    host: str
    port: int
    timeout: float
    connections: int = 1


class SyncHandle(Protocol):
    @property
    def get(self) -> Callable[[str], bytes | None]: ...

    def get_within(self, name: str, seconds: float) -> bytes | None:
        """``get`` given up after ``seconds``: raises :class:`GaveUp` then."""

    def blpop(self, name: str, wait: float) -> object: ...

    def close(self) -> None: ...


class AsyncHandle(Protocol):
    @property
    def get(self) -> Callable[[str], Awaitable[bytes | None]]: ...

    def blpop(self, name: str, wait: float) -> Awaitable[object]: ...

    def aclose(self) -> Awaitable[None]: ...


class GaveUp(Exception):
    """A call of the cancel storm ended by its own deadline, as the storm wanted."""


# -- dualio ------------------------------------------------------------------------------

class DualioSync:
    def __init__(self, opening: Opening, transport: Literal["blocking", "portal"]) -> None:
        self.client = BlockingRedis(opening.host, opening.port, timeout=opening.timeout,
                                    held_connections=max(16, opening.connections), transport=transport)
        self.get = self.client.get
        self.close = self.client.close

    def get_within(self, name: str, seconds: float) -> bytes | None:
        try:
            return self.client.get(name, timeout=seconds)
        except DualioTimeout as exc:
            raise GaveUp() from exc

    def blpop(self, name: str, wait: float) -> object:
        return self.client.blpop(name, wait=wait)


class DualioAsync:
    def __init__(self, client: AsyncRedis[bytes]) -> None:
        self.client = client
        self.get = client.get
        self.aclose = client.aclose

    @classmethod
    async def open(cls, opening: Opening, transport: Literal["native", "anyio", "emulated"] = "native",
                   emulation: Literal["pool", "thread", "callback"] = "pool") -> DualioAsync:
        client = AsyncRedis(opening.host, opening.port, timeout=opening.timeout, transport=transport,
                            emulation=emulation, held_connections=max(16, opening.connections))
        await client.open()
        return cls(client)

    async def blpop(self, name: str, wait: float) -> object:
        return await self.client.blpop(name, wait=wait)


# -- redis-py, valkey-glide, coredis ---------------------------------------------------------

def _pool_size(opening: Opening, default: int) -> int | None:
    """A peer's pool bound, raised to the connections a case holds at once, as dualio's
    ``held_connections`` is (redis-py 8 refuses the 101st connection; coredis 6 makes
    the 65th caller wait); None: the peer's default."""
    return opening.connections if opening.connections > default else None


class RedisPySync:
    """redis-py's blocking client (hiredis parses when installed): a pool of connections,
    one per thread in a call. It connects on its first call."""

    def __init__(self, opening: Opening) -> None:
        import redis

        self.client = redis.Redis(opening.host, opening.port, protocol=3, socket_timeout=opening.timeout,
                                  socket_connect_timeout=opening.timeout,
                                  max_connections=_pool_size(opening, 100))
        self.get = cast(Callable[[str], "bytes | None"], self.client.get)
        self.close = self.client.close

    def get_within(self, name: str, seconds: float) -> bytes | None:
        raise NotImplementedError("redis-py's blocking client has no per-call timeout")

    def blpop(self, name: str, wait: float) -> object:
        return self.client.blpop([name], timeout=wait)


GLIDE_BLOCKING_GRACE = 0.5
"""valkey-glide times a blocking command (BLPOP) out at its own timeout plus this, whatever
its ``request_timeout``; on its one connection the server serves blocking commands one after
another, so the k-th of N BLPOPs held Y each answers after k × Y."""
GLIDE_INFLIGHT = 1000
"""valkey-glide's default bound on requests in flight on its connection: a case that holds
more at once (a fan-out of 10,000 BLPOPs) raises it, as dualio's ``held_connections`` is."""


def glide_quiet() -> None:
    """valkey-glide's logs off, for both of its clients: its Rust core writes a line per
    failed command into the run's output otherwise."""
    import glide
    import glide_sync

    glide.Logger.set_logger_config(glide.LogLevel.OFF)
    glide_sync.Logger.set_logger_config(glide_sync.LogLevel.OFF)


class GlideSync:
    """valkey-glide's blocking client: one multiplexed connection, driven by Rust threads."""

    def __init__(self, opening: Opening) -> None:
        from glide_sync import GlideClient, GlideClientConfiguration, NodeAddress

        glide_quiet()
        config = GlideClientConfiguration([NodeAddress(opening.host, opening.port)],
                                          request_timeout=int(opening.timeout * 1000),
                                          inflight_requests_limit=max(GLIDE_INFLIGHT, opening.connections))
        self.client = GlideClient.create(config)
        self.get = cast(Callable[[str], "bytes | None"], self.client.get)
        self.close = self.client.close

    def get_within(self, name: str, seconds: float) -> bytes | None:
        raise NotImplementedError("glide's blocking client has no per-call timeout")

    def blpop(self, name: str, wait: float) -> object:
        return self.client.blpop([name], wait)


class RedisPyAsync:
    """redis.asyncio.Redis: it connects on its first call."""

    def __init__(self, opening: Opening) -> None:
        import redis.asyncio

        self.client = redis.asyncio.Redis(host=opening.host, port=opening.port, protocol=3,
                                          socket_timeout=opening.timeout,
                                          socket_connect_timeout=opening.timeout,
                                          max_connections=_pool_size(opening, 100))
        self.get = cast(Callable[[str], Awaitable["bytes | None"]], self.client.get)
        self.aclose = self.client.aclose

    @classmethod
    async def open(cls, opening: Opening) -> RedisPyAsync:
        return cls(opening)

    async def blpop(self, name: str, wait: float) -> object:
        return await self.client.blpop([name], timeout=wait)


class GlideAsync:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.get = client.get
        self.aclose = client.close

    @classmethod
    async def open(cls, opening: Opening) -> GlideAsync:
        from glide import GlideClient, GlideClientConfiguration, NodeAddress

        glide_quiet()
        config = GlideClientConfiguration([NodeAddress(opening.host, opening.port)],
                                          request_timeout=int(opening.timeout * 1000),
                                          inflight_requests_limit=max(GLIDE_INFLIGHT, opening.connections))
        return cls(await GlideClient.create(config))

    async def blpop(self, name: str, wait: float) -> object:
        return await self.client.blpop([name], wait)


class Coredis:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.get = client.get

    @classmethod
    async def open(cls, opening: Opening) -> Coredis:
        import coredis

        client = coredis.Redis(opening.host, opening.port, stream_timeout=opening.timeout,
                               connect_timeout=opening.timeout, max_connections=_pool_size(opening, 64))
        await client.__aenter__()  # coredis 6 runs a client inside ``async with`` only
        return cls(client)

    async def blpop(self, name: str, wait: float) -> object:
        return await self.client.blpop([name], wait)

    async def aclose(self) -> None:
        await self.client.__aexit__(None, None, None)


# -- a blocking client made async: the source SDK's design on redis-py ----------------------

class ThreadPerCall(Executor):
    """An executor that starts a fresh thread for every call: ``emulate_async``'s
    thread strategy for a client dualio does not own."""

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        future: Future[R] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:
                future.set_exception(exc)

        threading.Thread(target=run, daemon=True, name="lab-call").start()
        return future


Wrapping = Literal["pool", "thread", "asyncio.to_thread"]


def _to_thread(fn: Callable[..., R]) -> Callable[..., Awaitable[R]]:
    return functools.partial(asyncio.to_thread, fn)


class EmulatedPeer:
    """redis-py's blocking client behind an awaitable face: ``emulate_async`` on the
    loop's default executor (``pool``), on a thread per call (``thread``), or
    ``asyncio.to_thread``."""

    def __init__(self, blocking: RedisPySync, wrapping: Wrapping) -> None:
        self.blocking = blocking
        wrap: Callable[[Callable[..., Any]], Callable[..., Awaitable[Any]]]
        if wrapping == "asyncio.to_thread":
            wrap = _to_thread
        else:
            executor = ThreadPerCall() if wrapping == "thread" else None
            wrap = functools.partial(emulate_async, executor=executor)
        self.get = wrap(blocking.get)
        self.blpop = wrap(blocking.blpop)

    async def aclose(self) -> None:
        self.blocking.close()


# -- the modes -------------------------------------------------------------------------------

@dataclass(frozen=True)
class RedisMode:
    name: str
    description: str
    face: Literal["sync", "async", "raw"]
    open_sync: Callable[[Opening], SyncHandle] | None = None
    open_async: Callable[[Opening], Awaitable[AsyncHandle]] | None = None
    backend: str = "asyncio"
    needs: tuple[str, ...] = ()
    dualio: bool = False
    model: Model = ""
    workers: int | None = None
    storm_skip: str = ""  # why the mode is left out of the cancel storm, or ""

    def missing(self) -> str:
        """Why this mode cannot run here, or ""."""
        return not_installed(self.needs, "lab")

    @property
    def peer(self) -> bool:
        return not self.dualio


def _dualio_sync(transport: Literal["blocking", "portal"]) -> Callable[[Opening], SyncHandle]:
    return functools.partial(DualioSync, transport=transport)


def _dualio_async(transport: Literal["native", "anyio", "emulated"],
                  emulation: Literal["pool", "thread", "callback"] = "pool"
                  ) -> Callable[[Opening], Awaitable[AsyncHandle]]:
    return functools.partial(DualioAsync.open, transport=transport, emulation=emulation)


def _emulated_peer(wrapping: Wrapping) -> Callable[[Opening], Awaitable[AsyncHandle]]:
    async def open_peer(opening: Opening) -> AsyncHandle:
        return EmulatedPeer(RedisPySync(opening), wrapping)

    return open_peer


NO_CALL_TIMEOUT = "no per-call timeout to give a call up with"
REDIS_PY_MODULES = ("redis", "hiredis")


def redis_modes() -> list[RedisMode]:
    """Every mode of the Redis scenario, in table order."""
    w = default_workers()
    return [
        RedisMode("sync", "dualio_sync.redis.Redis, the blocking transport", "sync",
                  open_sync=_dualio_sync("blocking"), backend="", dualio=True, model="threads"),
        RedisMode("portal", "dualio_sync.redis.Redis on the portal's one event-loop thread", "sync",
                  open_sync=_dualio_sync("portal"), backend="", dualio=True),
        RedisMode("native-asyncio", "dualio.redis.Redis, asyncio's fast path", "async",
                  open_async=_dualio_async("native"), dualio=True, model="coroutines"),
        RedisMode("native-uvloop", "dualio.redis.Redis, asyncio's fast path on uvloop", "async",
                  open_async=_dualio_async("native"), backend="uvloop", needs=("uvloop",), dualio=True,
                  model="coroutines"),
        RedisMode("native-trio", "dualio.redis.Redis, the anyio transport on trio", "async",
                  open_async=_dualio_async("native"), backend="trio", needs=("trio",), dualio=True,
                  model="coroutines"),
        RedisMode("emulated-pool", f"dualio.redis.Redis, the blocking transport on the default executor "
                  f"(W={w})", "async", open_async=_dualio_async("emulated", "pool"), dualio=True,
                  model="pool", workers=w),
        RedisMode("emulated-thread", "dualio.redis.Redis, the blocking transport, a fresh thread per call",
                  "async", open_async=_dualio_async("emulated", "thread"), dualio=True, model="threads"),
        RedisMode("emulated-callback", "dualio.redis.Redis, a worker only writes; the reader completes",
                  "async", open_async=_dualio_async("emulated", "callback"), dualio=True),
        RedisMode("redis-py", "redis-py's blocking client (hiredis), its connection pool", "sync",
                  open_sync=RedisPySync, backend="", needs=REDIS_PY_MODULES, model="threads",
                  storm_skip=f"redis-py's blocking client has {NO_CALL_TIMEOUT}"),
        RedisMode("redis-py-asyncio", "redis.asyncio.Redis (hiredis), its connection pool", "async",
                  open_async=RedisPyAsync.open, needs=REDIS_PY_MODULES, model="coroutines"),
        RedisMode("glide-sync", "valkey-glide's blocking client (Rust core, one connection)", "sync",
                  open_sync=GlideSync, backend="", needs=("glide_sync",), model="one-connection",
                  storm_skip=f"glide's blocking client has {NO_CALL_TIMEOUT}"),
        RedisMode("glide-async", "valkey-glide's asyncio client (Rust core, one connection)", "async",
                  open_async=GlideAsync.open, needs=("glide",), model="one-connection"),
        RedisMode("coredis", "coredis.Redis on asyncio, its connection pool", "async",
                  open_async=Coredis.open, needs=("coredis",), model="coroutines"),
        RedisMode("redis-py+emulated-pool", f"redis-py's blocking client through dualio's emulate_async, "
                  f"the default executor (W={w})", "async", open_async=_emulated_peer("pool"),
                  needs=REDIS_PY_MODULES, model="pool", workers=w),
        RedisMode("redis-py+emulated-thread", "redis-py's blocking client through emulate_async, "
                  "a fresh thread per call", "async", open_async=_emulated_peer("thread"),
                  needs=REDIS_PY_MODULES, model="threads"),
        RedisMode("redis-py+asyncio.to_thread", f"redis-py's blocking client through asyncio.to_thread "
                  f"(W={w})", "async", open_async=_emulated_peer("asyncio.to_thread"),
                  needs=REDIS_PY_MODULES, model="pool", workers=w),
        RedisMode("raw-resp", "a blocking socket: send GET, read the bulk string (the floor)", "raw",
                  backend="", storm_skip="the floor has no client to give a call up"),
    ]


# -- running a case ---------------------------------------------------------------------------

def run(mode: RedisMode, opening: Opening, case: Case, work: Workload) -> Outcome:
    """``work.total`` calls of ``case``, ``work.inflight`` at once: ``get`` reads the
    keys on one client; ``connect`` opens a client for each GET and closes it; ``blpop``
    waits ``work.delay`` on an empty list, every call on one client (a BLPOP that
    returns before 0.9 of its wait counts as wrong)."""
    if mode.face == "raw":
        return _run_raw(opening, case, work)
    if mode.face == "sync":
        return _run_sync(mode, opening, case, work)
    return run_on(mode.backend, functools.partial(_run_async, mode, opening, case, work))


def _nothing() -> None:
    pass


def _held_long_enough(started: float, wait: float) -> bool:
    return time.perf_counter() - started >= 0.9 * wait


def _run_sync(mode: RedisMode, opening: Opening, case: Case, work: Workload) -> Outcome:
    assert mode.open_sync is not None
    open_sync = mode.open_sync
    if case == "connect":
        def connected(index: int) -> bool:
            handle = open_sync(opening)
            try:
                return handle.get(key_of(index)) == value_of(index)
            finally:
                handle.close()

        return drive_threads(lambda: (connected, _nothing), work)
    handle = open_sync(opening)
    try:
        if case == "get":
            def call(index: int) -> bool:
                return handle.get(key_of(index)) == value_of(index)
        else:
            def call(index: int) -> bool:
                started = time.perf_counter()
                return handle.blpop(empty_list(index), work.delay) is None and _held_long_enough(
                    started, work.delay)

        return drive_threads(lambda: (call, _nothing), work)
    finally:
        handle.close()


async def _run_async(mode: RedisMode, opening: Opening, case: Case, work: Workload) -> Outcome:
    assert mode.open_async is not None
    open_async = mode.open_async
    if case == "connect":
        async def connected(index: int) -> bool:
            handle = await open_async(opening)
            try:
                return await handle.get(key_of(index)) == value_of(index)
            finally:
                await handle.aclose()

        return await drive_async(connected, work)
    handle = await open_async(opening)
    try:
        if case == "get":
            async def call(index: int) -> bool:
                return await handle.get(key_of(index)) == value_of(index)
        else:
            async def call(index: int) -> bool:
                started = time.perf_counter()
                return await handle.blpop(empty_list(index), work.delay) is None and _held_long_enough(
                    started, work.delay)

        return await drive_async(call, work)
    finally:
        await handle.aclose()


def resp_command(*parts: str) -> bytes:
    out = [f"*{len(parts)}\r\n".encode()]
    for part in parts:
        data = part.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def _run_raw(opening: Opening, case: Case, work: Workload) -> Outcome:
    """The floor: a blocking socket sends each GET and reads its bulk-string reply, one
    at a time (``connect``: a connection per GET). Plain blocking reads, bounded by the
    kernel's SO_RCVTIMEO: a Python-level timeout would poll before every receive."""
    if case == "blpop" or work.inflight != 1:
        raise ValueError("the raw floor runs GETs one at a time")
    commands = [resp_command("GET", key_of(i)) for i in range(KEYS)]
    replies = [b"$%d\r\n%s\r\n" % (len(value_of(i)), value_of(i)) for i in range(KEYS)]
    seconds = max(1, math.ceil(opening.timeout))

    def dial() -> socket.socket:
        sock = socket.create_connection((opening.host, opening.port), timeout=opening.timeout)
        sock.settimeout(None)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", seconds, 0))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    kept = None if case == "connect" else dial()

    def call(index: int) -> bool:
        sock = kept or dial()
        try:
            sock.sendall(commands[index % KEYS])
            expected = replies[index % KEYS]
            data = sock.recv(65536)
            while len(data) < len(expected) and data[:1] == b"$":
                more = sock.recv(65536)
                if not more:
                    raise ConnectionError("redis-server closed the connection")
                data += more
            return data == expected
        finally:
            if sock is not kept:
                sock.close()

    try:
        return drive_threads(lambda: (call, _nothing), work)
    finally:
        if kept is not None:
            kept.close()
