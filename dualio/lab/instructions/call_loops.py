"""The measured loops: N echo calls through one way of calling, on a fake peer.

Each loop sets up its client (or server) on a fake peer (:mod:`dualio.lab.instructions.fake_peers`),
reads ``clock()`` just before its first call and just after its last, tears down, and
returns the clock's difference per call. ``client_cost`` passes ``time.process_time``;
``instructions`` passes a marker that callgrind dumps its counts at, so the counts
cover the calls and nothing of set-up or teardown.

Every dualio loop has a *raw* loop beside it: the least code that does the same with
the same primitives (a socket and ``poll``; a future per call; a worker thread; a loop
thread; a server Protocol that parses and answers), so dualio − raw is dualio's own.

The Redis loops are GETs of a 16-byte value through the Redis faces (``dualio_sync.redis``
and ``dualio.redis``), on a fake RESP3 peer, beside raw RESP loops.
"""

from __future__ import annotations

import asyncio
import select
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from dualio.client import AsyncClient
from dualio.lab.instructions.fake_peers import (
    ECHO_REQUEST,
    GET_COMMAND,
    KEY,
    PAYLOAD,
    FakeRespSocket,
    FakeRespTransport,
    FakeSocket,
    FakeTransport,
    FakeTrioStream,
    RawProtocol,
    RawRespProtocol,
    ServerFeed,
    answers,
    anyio_connection,
    asyncio_connection,
    blocking_connection,
    read_bulk,
    with_id,
)
from dualio.lab.peers import handwritten_frames
from dualio.redis import Redis as AsyncRedis
from dualio.server.async_model import _Connection
from dualio.server.config import ServerConfig
from dualio_sync.client import Client
from dualio_sync.redis import Redis as BlockingRedis
from dualio_transports.blocking.connection import BlockingConnection
from dualio_transports.blocking.dialing import Connecting
from dualio_transports.dualio_protocol.client_protocol import ClientProtocol
from dualio_transports.dualio_protocol.frames import HEADER, HEADER_SIZE
from dualio_transports.emulation.emulated_connection import EmulatedConnection, Strategy
from dualio_transports.emulation.reader_thread_connection import ReaderThreadConnection
from dualio_transports.interface import AsyncTransport
from dualio_transports.portal import loop_thread
from dualio_transports.portal.connection import PortalConnection
from dualio_transports.portal.loop_thread import LoopThread
from dualio_transports.running_loop import LoopHandle
from dualio_transports.wire.failures import call_timeout

Clock = Callable[[], float]


def _check(answer: bytes | None) -> None:
    if answer != PAYLOAD:
        raise AssertionError(f"wrong answer: {answer!r}")


# -- blocking ------------------------------------------------------------------------------

def _raw_blocking_call(sock: FakeSocket, poller: select.poll, rid: int) -> bytes:
    sock.send(with_id(ECHO_REQUEST, rid))
    while True:
        try:
            data = sock.recv(65536)
            break
        except BlockingIOError:
            poller.poll(None)
    _, _, got = HEADER.unpack_from(data)
    if got != rid:
        raise AssertionError(f"answer for id {got}, expected {rid}")
    return data[HEADER_SIZE:]


def sync_raw(calls: int, clock: Clock) -> float:
    """The least a blocking client does per call: send a frame, poll, recv, check its id."""
    sock = FakeSocket()
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    try:
        started = clock()
        for rid in range(1, calls + 1):
            _check(_raw_blocking_call(sock, poller, rid))
        return (clock() - started) / calls
    finally:
        sock.close()


def _blocking_calls(client: Client, calls: int, clock: Clock) -> float:
    """``calls`` echo calls on a blocking face; it is closed at the end."""
    try:
        echo = client.echo
        started = clock()
        for _ in range(calls):
            _check(echo(PAYLOAD))
        return (clock() - started) / calls
    finally:
        client.close()


def sync_dualio(calls: int, clock: Clock) -> float:
    """``Client.echo`` over the blocking transport."""
    sock = FakeSocket()
    client = Client("fake", 1, lazy=True)
    client._conn = blocking_connection(sock)
    try:
        return _blocking_calls(client, calls, clock)
    finally:
        sock.close()


# -- asyncio -------------------------------------------------------------------------------

async def _per_call(
    call: Callable[[], Awaitable[bytes | None]], calls: int, in_flight: int, clock: Clock
) -> float:
    each = calls // in_flight

    async def user() -> None:
        for _ in range(each):
            _check(await call())

    started = clock()
    if in_flight == 1:
        await user()
    else:
        await asyncio.gather(*(user() for _ in range(in_flight)))
    return (clock() - started) / (each * in_flight)


async def native_raw(calls: int, in_flight: int, clock: Clock) -> float:
    """The least an asyncio client does per call: a future per call, matched by id."""
    loop = asyncio.get_running_loop()
    protocol = RawProtocol()
    transport = FakeTransport(loop, protocol)
    ids = iter(range(1, calls + in_flight + 1))

    async def call() -> bytes:
        rid = next(ids)
        future: asyncio.Future[bytes] = loop.create_future()
        protocol.waiting[rid] = future
        transport.write(with_id(ECHO_REQUEST, rid))
        return await future

    return await _per_call(call, calls, in_flight, clock)


async def _opened_client(**options: Any) -> AsyncClient:
    client = AsyncClient("fake", 1, lazy=True, **options)
    await client.open()
    return client


async def native_dualio(calls: int, in_flight: int, clock: Clock) -> float:
    """``AsyncClient.echo`` over the asyncio fast path."""
    client = await _opened_client()
    client._conn = await asyncio_connection()
    try:
        echo = client.echo
        return await _per_call(lambda: echo(PAYLOAD), calls, in_flight, clock)
    finally:
        await client.aclose()


# -- trio ----------------------------------------------------------------------------------

async def _per_call_trio(call: Callable[[], Awaitable[bytes | None]], calls: int, in_flight: int,
                         clock: Clock) -> float:
    import trio

    each = calls // in_flight

    async def user() -> None:
        for _ in range(each):
            _check(await call())

    started = clock()
    async with trio.open_nursery() as users:
        for _ in range(in_flight):
            users.start_soon(user)
    return (clock() - started) / (each * in_flight)


def _seeded_trio() -> Any:
    """trio, its scheduler's coin (which reverses the order of each batch of runnable
    tasks half the time) seeded, so the same loop runs the same steps every time."""
    import trio

    trio._core._run._r.seed(0)
    return trio


def trio_raw(calls: int, in_flight: int, clock: Clock) -> float:
    """The lab's hand-written trio client (a reader task, a writer task) on a fake stream."""
    trio = _seeded_trio()

    from dualio.lab.peers.trio_client import TrioPeer

    async def main() -> float:
        async with trio.open_nursery() as tasks:
            peer = TrioPeer(FakeTrioStream(), tasks)  # type: ignore[arg-type]
            tasks.start_soon(peer._read)
            tasks.start_soon(peer._write)
            peer._send(handwritten_frames.HELLO_FRAME)
            await peer._welcome.wait()
            per_call = await _per_call_trio(lambda: peer.echo(PAYLOAD), calls, in_flight, clock)
            tasks.cancel_scope.cancel()
        return per_call

    return float(trio.run(main))


def trio_dualio(calls: int, in_flight: int, clock: Clock) -> float:
    """``AsyncClient.echo`` on trio (the anyio transport) on a fake stream."""
    trio = _seeded_trio()

    async def main() -> float:
        client = await _opened_client()
        client._conn = await anyio_connection(FakeTrioStream())
        try:
            echo = client.echo
            return await _per_call_trio(lambda: echo(PAYLOAD), calls, in_flight, clock)
        finally:
            await client.aclose()

    return float(trio.run(main))


# -- emulation: the blocking transport from a loop ------------------------------------------

async def emulated_raw(calls: int, clock: Clock) -> float:
    """The least an emulation does per call: the raw blocking call on a pooled worker."""
    sock = FakeSocket()
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    loop = asyncio.get_running_loop()
    ids = iter(range(1, calls + 1))
    with ThreadPoolExecutor(1) as pool:
        try:
            def call() -> Awaitable[bytes]:
                return loop.run_in_executor(pool, _raw_blocking_call, sock, poller, next(ids))

            return await _per_call(call, calls, 1, clock)
        finally:
            sock.close()


async def to_thread_dualio(calls: int, clock: Clock) -> float:
    """``asyncio.to_thread(client.echo)`` with a blocking ``Client``, the loop's default
    executor one worker: what the emulation is measured against."""
    sock = FakeSocket()
    client = Client("fake", 1, lazy=True)
    client._conn = blocking_connection(sock)
    loop = asyncio.get_running_loop()
    pool = ThreadPoolExecutor(1)
    loop.set_default_executor(pool)
    try:
        echo = client.echo
        return await _per_call(lambda: asyncio.to_thread(echo, PAYLOAD), calls, 1, clock)
    finally:
        pool.shutdown()
        sock.close()


async def emulated_dualio(calls: int, strategy: Strategy, clock: Clock) -> float:
    """``AsyncClient(transport="emulated", emulation=strategy).echo``, one worker."""
    sock = FakeSocket()
    client = await _opened_client(transport="emulated", emulation=strategy, max_workers=1)
    pool = ThreadPoolExecutor(1, thread_name_prefix="dualio-pool")
    conn = blocking_connection(sock, ReaderThreadConnection)
    client._conn = EmulatedConnection(conn, LoopHandle.current(), strategy, pool, None, pool)
    try:
        echo = client.echo
        return await _per_call(lambda: echo(PAYLOAD), calls, 1, clock)
    finally:
        await client.aclose()
        sock.close()


# -- the portal: the asyncio transport on a loop thread --------------------------------------

def portal_raw(calls: int, clock: Clock) -> float:
    """The least a portal does per call: a raw asyncio call begun on a loop thread by a
    callback, its caller waiting on a lock the answer releases."""
    portal = LoopThread()
    loop = portal.loop
    protocol = RawProtocol()
    transport = FakeTransport(loop, protocol)
    ids = iter(range(1, calls + 1))

    def begin(answered: threading.Lock, answer: list[asyncio.Future[bytes]]) -> None:
        rid = next(ids)
        future: asyncio.Future[bytes] = loop.create_future()
        future.add_done_callback(lambda _: answered.release())
        protocol.waiting[rid] = future
        transport.write(with_id(ECHO_REQUEST, rid))
        answer.append(future)

    try:
        started = clock()
        for _ in range(calls):
            answered = threading.Lock()
            answered.acquire()
            answer: list[asyncio.Future[bytes]] = []
            loop.call_soon_threadsafe(begin, answered, answer)
            answered.acquire()
            _check(answer[0].result())
        return (clock() - started) / calls
    finally:
        portal.stop()


def portal_dualio(calls: int, clock: Clock) -> float:
    """``Client(transport="portal").echo``, on the process's portal loop thread."""
    portal = loop_thread.shared()
    made = portal.submit(asyncio_connection())
    assert made is not None
    client = Client("fake", 1, lazy=True, transport="portal")
    client._conn = PortalConnection(portal, portal.wait(made, None, call_timeout))
    return _blocking_calls(client, calls, clock)


# -- Redis (RESP3) -------------------------------------------------------------------------

class BlockingRedisOnFakePeer(BlockingRedis[bytes]):
    """The blocking Redis face, its connection (made as the face's options say, RESP3
    handshake included) on a :class:`FakeRespSocket` instead of a TCP socket."""

    def _connect_transport(self, until: float, connecting: Connecting | None = None) -> BlockingConnection:
        return blocking_connection(FakeRespSocket(), options=self._options)


class AsyncRedisOnFakePeer(AsyncRedis[bytes]):
    """The async Redis face, its asyncio fast path (made as the face's options say, RESP3
    handshake included) on a :class:`FakeRespTransport` instead of a TCP socket."""

    async def _connect_transport(self, until: float) -> AsyncTransport:
        return await asyncio_connection(self._options, FakeRespTransport)


def _raw_resp_get(sock: FakeSocket, poller: select.poll) -> bytes:
    sock.send(GET_COMMAND)
    while True:
        try:
            data = sock.recv(65536)
            break
        except BlockingIOError:
            poller.poll(None)
    return read_bulk(data)[0]


def redis_sync_raw(calls: int, clock: Clock) -> float:
    """The least a blocking Redis client does per GET: send the command, poll, recv, read
    the bulk string."""
    sock = FakeRespSocket()
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    try:
        started = clock()
        for _ in range(calls):
            _check(_raw_resp_get(sock, poller))
        return (clock() - started) / calls
    finally:
        sock.close()


def redis_sync_dualio(calls: int, clock: Clock) -> float:
    """``dualio_sync.redis.Redis.get`` over the blocking transport."""
    redis = BlockingRedisOnFakePeer("fake", 1)
    try:
        get = redis.get
        started = clock()
        for _ in range(calls):
            _check(get(KEY))
        return (clock() - started) / calls
    finally:
        redis.close()


async def redis_native_raw(calls: int, in_flight: int, clock: Clock) -> float:
    """The least an asyncio Redis client does per GET: a future per command, answered in
    the order written."""
    loop = asyncio.get_running_loop()
    protocol = RawRespProtocol()
    transport = FakeRespTransport(loop, protocol)
    waiting = protocol.waiting

    async def call() -> bytes:
        future: asyncio.Future[bytes] = loop.create_future()
        waiting.append(future)
        transport.write(GET_COMMAND)
        return await future

    return await _per_call(call, calls, in_flight, clock)


async def redis_native_dualio(calls: int, in_flight: int, clock: Clock) -> float:
    """``dualio.redis.Redis.get`` over the asyncio fast path."""
    redis = AsyncRedisOnFakePeer("fake", 1)
    await redis.open()
    try:
        get = redis.get
        return await _per_call(lambda: get(KEY), calls, in_flight, clock)
    finally:
        await redis.aclose()


PIPELINE = [("GET", KEY)] * 100
"""The commands of one pipeline in the ``-pipeline`` figures: their count is per GET."""


def redis_sync_pipeline_dualio(calls: int, clock: Clock) -> float:
    """``dualio_sync.redis.Redis.pipeline`` of 100 GETs over the blocking transport, per GET."""
    redis = BlockingRedisOnFakePeer("fake", 1)
    try:
        pipeline = redis.pipeline
        started = clock()
        for _ in range(calls // len(PIPELINE)):
            _check(pipeline(*PIPELINE)[-1])
        return (clock() - started) / calls
    finally:
        redis.close()


async def redis_native_pipeline_dualio(calls: int, clock: Clock) -> float:
    """``dualio.redis.Redis.pipeline`` of 100 GETs over the asyncio fast path, per GET."""
    redis = AsyncRedisOnFakePeer("fake", 1)
    await redis.open()
    try:
        pipeline = redis.pipeline
        started = clock()
        for _ in range(calls // len(PIPELINE)):
            _check((await pipeline(*PIPELINE))[-1])
        return (clock() - started) / calls
    finally:
        await redis.aclose()


# -- the server ------------------------------------------------------------------------------

class RawServer(asyncio.Protocol):
    """The least a protocol-v1 server does per echo request: parse each frame, answer it
    with the request's argument, and write the answers of one read together."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._buffer = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._buffer:
            data = self._buffer + data
        answer = answers(data)  # whole frames only: the feed never splits one
        assert self.transport is not None
        self.transport.write(answer)


async def _serve(protocol: asyncio.Protocol, feed: ServerFeed, requests: int, per_read: int,
                 clock: Clock) -> float:
    """Feed ``requests`` echo requests, ``per_read`` frames in each read, one loop pass per read."""
    reads = requests // per_read
    batches = [b"".join(with_id(ECHO_REQUEST, rid) for rid in range(first, first + per_read))
               for first in range(1, reads * per_read + 1, per_read)]
    data_received = protocol.data_received
    started = clock()
    for batch in batches:
        data_received(batch)
        await asyncio.sleep(0)  # the loop pass in which answers are written
    spent = clock() - started
    expected = reads * per_read * (HEADER_SIZE + len(PAYLOAD))
    if feed.written < expected:
        raise AssertionError(f"the server wrote {feed.written} bytes, expected {expected} or more")
    return spent / (reads * per_read)


async def server_raw(requests: int, per_read: int, clock: Clock) -> float:
    protocol = RawServer()
    feed = ServerFeed()
    protocol.connection_made(feed)
    return await _serve(protocol, feed, requests, per_read, clock)


async def server_dualio(requests: int, per_read: int, clock: Clock) -> float:
    """The reference server's async model, one connection, handshaken."""
    loop = asyncio.get_running_loop()
    config = ServerConfig(port=0)
    conn = _Connection(config, loop, loop.time(), "fake", lambda _conn: None)
    feed = ServerFeed()
    conn.connection_made(feed)
    conn.data_received(ClientProtocol().hello())
    await asyncio.sleep(0)
    try:
        return await _serve(conn, feed, requests, per_read, clock)
    finally:
        conn.connection_lost(None)

