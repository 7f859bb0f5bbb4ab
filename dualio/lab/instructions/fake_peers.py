"""Fake peers: a client or server measured with no network, no kernel and no other process.

The fake peer answers in the client's own thread, from the request's header, with work
that costs next to nothing and is the same for dualio and for the *raw* loop beside it
(the least a client can do: write a frame, wait, read a frame, match its id). The lab's
``client_cost`` (CPU time per call) and ``instructions`` (instructions per call) use them.

- :class:`FakeSocket`: what the blocking transport uses of a socket; its readiness is a
  real pipe, so ``poll`` works as on a socket.
- :class:`FakeTransport`: an ``asyncio.Transport`` that hands each answer to its
  protocol on the next loop pass, as a socket would.
- :class:`FakeTrioStream`: a trio stream (and an anyio ``ByteStream``) whose sends are
  answered at once and whose receives wait for the answers, checkpointing as trio's
  socket stream does.
- :class:`ServerFeed`: the server's side, a transport that only counts what a
  server protocol writes.

The Redis faces' fake peer is a RESP3 server as small (:func:`resp_answers`):
:class:`FakeRespSocket` and :class:`FakeRespTransport` are the two above answering
RESP3 commands instead of dualio's frames.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from typing import Any, TypeVar, cast

from dualio_transports.blocking.connection import BlockingConnection
from dualio_transports.dualio_protocol.client_protocol import WELCOME
from dualio_transports.dualio_protocol.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    HEADER,
    HEADER_SIZE,
    PROTOCOL_VERSION,
    FrameKind,
    encode_frame,
)
from dualio_transports.dualio_protocol.methods import F64
from dualio_transports.native.anyio_connection import AnyioConnection
from dualio_transports.native.asyncio_connection import AsyncioConnection
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.redis_protocol.resp import encode_command
from dualio_transports.wire.deadline import deadline

PAYLOAD = b"x" * 16
"""What every measured call echoes."""
ECHO_REQUEST = encode_frame(FrameKind.REQUEST, 0, b"\x04echo" + F64.pack(0) + PAYLOAD)
"""An echo(PAYLOAD) request with id 0: a raw loop writes its own id into bytes 5..9."""
OPTIONS = ConnectOptions("fake", 1, 10.0, None, None, 15.0)
"""A fake peer's connect options: the faces' defaults (keepalive included)."""

_WELCOME = encode_frame(FrameKind.WELCOME, 0, WELCOME.pack(PROTOCOL_VERSION, DEFAULT_MAX_FRAME_SIZE))
_ECHO_ARGS_AT = HEADER_SIZE + 1 + len(b"echo") + F64.size  # where echo's bytes begin in a REQUEST


def with_id(request: bytes, rid: int) -> bytes:
    """``request`` with its id replaced: what a raw loop sends."""
    return request[:5] + rid.to_bytes(4, "big") + request[9:]


def answers(data: bytes) -> bytes:
    """The fake peer: WELCOME for HELLO, and for each REQUEST a RESPONSE echoing the
    request's last bytes (echo's argument). Other frames (CANCEL, CLOSE) get nothing."""
    out = []
    pos, size = 0, len(data)
    while pos < size:
        length, kind, rid = HEADER.unpack_from(data, pos)
        end = pos + 4 + length
        if kind == FrameKind.REQUEST:
            body = data[pos + _ECHO_ARGS_AT:end]
            out.append(HEADER.pack(5 + len(body), FrameKind.RESPONSE, rid) + body)
        elif kind == FrameKind.HELLO:
            out.append(_WELCOME)
        pos = end
    return b"".join(out)


# -- blocking ------------------------------------------------------------------------------

class FakeSocket:
    """What BlockingConnection uses of a socket, answered by :func:`answers`. Readable
    (to ``poll``) exactly when an answer waits: a byte in a pipe says so."""

    def __init__(self) -> None:
        self._signal_r, self._signal_w = os.pipe()
        os.set_blocking(self._signal_r, False)
        self._pending = b""

    def fileno(self) -> int:
        return self._signal_r

    def setblocking(self, flag: bool) -> None:
        pass

    def send(self, data: bytes | memoryview) -> int:
        answer = answers(bytes(data))
        if answer:
            if not self._pending:
                os.write(self._signal_w, b"!")
            self._pending += answer
        return len(data)

    def recv(self, size: int) -> bytes:
        if not self._pending:
            raise BlockingIOError
        os.read(self._signal_r, 1)
        data, self._pending = self._pending, b""
        return data

    def shutdown(self, how: int) -> None:
        pass

    def close(self) -> None:
        for fd in (self._signal_r, self._signal_w):
            try:
                os.close(fd)
            except OSError:
                pass


B = TypeVar("B", bound=BlockingConnection)


def blocking_connection(
    sock: FakeSocket,
    kind: type[B] = BlockingConnection,  # type: ignore[assignment]
    options: ConnectOptions = OPTIONS,
) -> B:
    """A blocking transport on ``sock`` (the emulation's, with ``kind``), handshaken;
    ``options`` say which protocol it speaks (dualio's by default)."""
    conn = kind(sock, options)  # type: ignore[arg-type]
    conn._handshake(deadline(10.0))
    return conn


# -- asyncio -------------------------------------------------------------------------------

class FakeTransport(asyncio.Transport):
    """Hands the answers to each write to the protocol on the next loop pass."""

    def __init__(self, loop: asyncio.AbstractEventLoop, protocol: asyncio.BaseProtocol) -> None:
        super().__init__()
        self._loop = loop
        self._protocol = protocol
        self._closing = False
        self._deliver = (self._into_buffer if isinstance(protocol, asyncio.BufferedProtocol)
                         else cast(asyncio.Protocol, protocol).data_received)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        answer = answers(bytes(data))
        if answer:
            self._loop.call_soon(self._deliver, answer)

    def _into_buffer(self, data: bytes) -> None:
        """As asyncio's socket transport reads for a buffered protocol."""
        protocol = self._protocol
        pos, size = 0, len(data)
        while pos < size:
            buffer: Any = protocol.get_buffer(-1)  # type: ignore[attr-defined]
            taken = min(len(buffer), size - pos)
            buffer[:taken] = data[pos : pos + taken]
            pos += taken
            protocol.buffer_updated(taken)  # type: ignore[attr-defined]

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        if not self._closing:
            self._closing = True
            self._loop.call_soon(self._protocol.connection_lost, None)

    def abort(self) -> None:
        self.close()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


class RawProtocol(asyncio.Protocol):
    """The least an asyncio client does per call: a future per call, matched by id."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[bytes]] = {}

    def data_received(self, data: bytes) -> None:
        pos, size = 0, len(data)
        while pos < size:
            length, _, rid = HEADER.unpack_from(data, pos)
            end = pos + 4 + length
            future = self.waiting.pop(rid)
            future.set_result(data[pos + HEADER_SIZE:end])
            pos = end


async def asyncio_connection(
    options: ConnectOptions = OPTIONS, peer: type[FakeTransport] = FakeTransport
) -> AsyncioConnection:
    """The asyncio fast path on a ``peer`` (:class:`FakeTransport`, dualio's protocol, by
    default) of the running loop, handshaken; ``options`` say which protocol it speaks."""
    loop = asyncio.get_running_loop()
    conn = AsyncioConnection(loop, options)
    conn.connection_made(peer(loop, conn))
    welcome = conn._table.handshake.waiter = loop.create_future()
    conn._write(conn._table.hello())
    await welcome
    return conn


# -- trio --------------------------------------------------------------------------------

class FakeTrioStream:
    """What the anyio transport uses of an anyio ``ByteStream`` and the lab's trio peer
    of a ``trio.SocketStream``. A send checkpoints once (as trio's socket send does after
    a send that went through) and queues the answers; a receive takes every answer that
    waits, checkpointing if one does and parking until one comes if none does."""

    def __init__(self) -> None:
        import trio

        self._trio = trio
        self._pending = b""
        self._arrived = trio.Event()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._trio.lowlevel.checkpoint()
        answer = answers(bytes(data))
        if answer:
            self._pending += answer
            self._arrived.set()

    send = send_all

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._pending:
            await self._trio.lowlevel.checkpoint()
        else:
            await self._arrived.wait()
        self._arrived = self._trio.Event()
        data, self._pending = self._pending, b""
        return data

    receive = receive_some

    async def aclose(self) -> None:
        self._pending = b""
        self._arrived.set()

    def extra(self, attribute: object, default: object = None) -> object:
        return default


async def anyio_connection(stream: FakeTrioStream) -> AnyioConnection:
    """The anyio transport on ``stream``, on the running loop, handshaken."""
    conn = AnyioConnection(stream, OPTIONS)  # type: ignore[arg-type]
    await conn._handshake(deadline(10.0))
    return conn


# -- Redis (RESP3) -------------------------------------------------------------------------

KEY = "key"
"""The key every measured GET reads (a ``str``, as most programs name keys)."""
GET_COMMAND = encode_command("GET", KEY)
"""``GET key`` as the Redis faces write it: what a raw loop sends."""
GET_REPLY = b"$%d\r\n%b\r\n" % (len(PAYLOAD), PAYLOAD)
"""The fake RESP peer's answer to every GET: PAYLOAD, a bulk string of 16 bytes."""
_RESP_REPLIES = {
    b"GET": GET_REPLY,
    b"HELLO": b"%1\r\n$5\r\nproto\r\n:3\r\n",  # a map saying protocol 3, as the handshake wants
    b"PING": b"+PONG\r\n",
}
_UNKNOWN = b"-ERR unknown command\r\n"


def resp_answers(data: bytes) -> bytes:
    """The fake RESP peer: for each whole command in ``data`` (an array of bulk strings),
    its reply; every GET answered with :data:`GET_REPLY`, HELLO with a map saying protocol
    3, PING with PONG, anything else with an error. Only GETs of :data:`KEY`, which is
    what the measured calls send, are answered without reading each command."""
    gets = data.count(GET_COMMAND)
    if gets * len(GET_COMMAND) == len(data):
        return GET_REPLY * gets
    out = []
    pos, size = 0, len(data)
    while pos < size:
        end = data.index(b"\r\n", pos)
        count = int(data[pos + 1:end])
        pos = end + 2
        name = b""
        for i in range(count):
            end = data.index(b"\r\n", pos)
            start = end + 2
            pos = start + int(data[pos + 1:end]) + 2
            if i == 0:
                name = data[start:pos - 2].upper()
        out.append(_RESP_REPLIES.get(name, _UNKNOWN))
    return b"".join(out)


class FakeRespSocket(FakeSocket):
    """A :class:`FakeSocket` whose peer is a RESP3 server (:func:`resp_answers`)."""

    def send(self, data: bytes | memoryview) -> int:
        answer = resp_answers(bytes(data))
        if answer:
            if not self._pending:
                os.write(self._signal_w, b"!")
            self._pending += answer
        return len(data)


class FakeRespTransport(FakeTransport):
    """A :class:`FakeTransport` whose peer is a RESP3 server (:func:`resp_answers`)."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        answer = resp_answers(bytes(data))
        if answer:
            self._loop.call_soon(self._deliver, answer)


def read_bulk(data: bytes, pos: int = 0) -> tuple[bytes, int]:
    """The bulk string at ``pos`` in ``data`` (whole, as the fake peer sends it), and where
    the next reply begins: the least a raw RESP client reads of a GET's reply."""
    if data[pos] != 0x24:  # b"$"
        raise AssertionError(f"not a bulk string: {data[pos:pos + 40]!r}")
    end = data.index(b"\r\n", pos)
    start = end + 2
    end = start + int(data[pos + 1:end])
    return data[start:end], end + 2


class RawRespProtocol(asyncio.Protocol):
    """The least an asyncio Redis client does per call: a future per command, answered in
    the order the commands were written."""

    def __init__(self) -> None:
        self.waiting: deque[asyncio.Future[bytes]] = deque()

    def data_received(self, data: bytes) -> None:
        pos, size = 0, len(data)
        while pos < size:
            value, pos = read_bulk(data, pos)
            self.waiting.popleft().set_result(value)


# -- the server's side ---------------------------------------------------------------------

class ServerFeed(asyncio.Transport):
    """A server protocol's transport that takes what it writes and counts the bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.written = 0
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += len(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True

    def abort(self) -> None:
        self._closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default
