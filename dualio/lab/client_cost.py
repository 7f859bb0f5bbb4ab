"""The client's own CPU per call, with no server: both faces against a fake peer.

    python -m dualio.lab.client_cost [--calls 20000] [--rounds 7] [--in-flight 100]

A server, a kernel and a scheduler make loopback timings noisy and mix their
cost into the client's. Here the peer is fake: it answers in the client's own
thread, from the request's header, with work that costs next to nothing and is
the same for dualio and for the *raw* loop beside it (the least a client can do:
write a frame, wait, read a frame, match its id). So ``dualio − raw`` is what
dualio's own Python costs per call; each figure is process CPU time per call, the
median of ``--rounds`` interleaved rounds, with the spread (min..max).

- **sync**: ``dualio_sync.Client.echo`` over the blocking transport, on a fake
  socket whose readiness is a real pipe (so ``poll`` works as on a socket, and a
  pipe write and read stand for the kernel's part, paid by the raw loop too).
- **native, sequential** and **native, N in flight**: ``AsyncClient.echo`` over
  the asyncio fast path, on a fake ``asyncio.Transport`` that hands each answer
  to ``data_received`` on the next loop pass, as a socket would.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import select
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dualio.client import AsyncClient
from dualio_sync.client import Client
from transports.blocking.connection import BlockingConnection
from transports.native.asyncio_connection import AsyncioConnection
from transports.wire.calls import deadline
from transports.wire.client_protocol import WELCOME
from transports.wire.connect_options import ConnectOptions
from transports.wire.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    HEADER,
    HEADER_SIZE,
    PROTOCOL_VERSION,
    FrameKind,
    encode_frame,
)
from transports.wire.methods import F64

PAYLOAD = b"x" * 16
_WELCOME = encode_frame(FrameKind.WELCOME, 0, WELCOME.pack(PROTOCOL_VERSION, DEFAULT_MAX_FRAME_SIZE))
_ECHO_ARGS_AT = HEADER_SIZE + 1 + len(b"echo") + F64.size  # where echo's bytes begin in a REQUEST


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


# -- sync -------------------------------------------------------------------------------

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


def sync_raw(calls: int) -> float:
    """The least a blocking client does per call: send a frame, poll, recv, check its id."""
    sock = FakeSocket()
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    request = encode_frame(FrameKind.REQUEST, 0, b"\x04echo" + F64.pack(0) + PAYLOAD)
    try:
        started = time.process_time()
        for rid in range(1, calls + 1):
            sock.send(request[:5] + rid.to_bytes(4, "big") + request[9:])
            while True:
                try:
                    data = sock.recv(65536)
                    break
                except BlockingIOError:
                    poller.poll(None)
            _, _, got = HEADER.unpack_from(data)
            assert got == rid and data[HEADER_SIZE:] == PAYLOAD
        return (time.process_time() - started) / calls
    finally:
        sock.close()


def sync_dualio(calls: int) -> float:
    options = ConnectOptions("fake", 1, 10.0, None, None, None, DEFAULT_MAX_FRAME_SIZE, 15.0)
    sock = FakeSocket()
    conn = BlockingConnection(sock, options)  # type: ignore[arg-type]
    conn._handshake(deadline(10.0))
    client = Client("fake", 1, lazy=True)
    client._conn = conn
    try:
        echo = client.echo
        started = time.process_time()
        for _ in range(calls):
            if echo(PAYLOAD) != PAYLOAD:
                raise AssertionError("wrong answer")
        return (time.process_time() - started) / calls
    finally:
        client.close()
        sock.close()


# -- native ------------------------------------------------------------------------------

class FakeTransport(asyncio.Transport):
    """Hands the answers to each write to the protocol on the next loop pass."""

    def __init__(self, loop: asyncio.AbstractEventLoop, protocol: asyncio.Protocol) -> None:
        super().__init__()
        self._loop = loop
        self._protocol = protocol
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        answer = answers(bytes(data))
        if answer:
            self._loop.call_soon(self._protocol.data_received, answer)

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


class _RawProtocol(asyncio.Protocol):
    """The least an asyncio client does per call: a future per call, matched by id."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[bytes]] = {}
        self.transport: asyncio.Transport | None = None

    def data_received(self, data: bytes) -> None:
        pos, size = 0, len(data)
        while pos < size:
            length, _, rid = HEADER.unpack_from(data, pos)
            end = pos + 4 + length
            future = self.waiting.pop(rid)
            future.set_result(data[pos + HEADER_SIZE:end])
            pos = end


async def native_raw(calls: int, in_flight: int) -> float:
    loop = asyncio.get_running_loop()
    protocol = _RawProtocol()
    transport = FakeTransport(loop, protocol)
    request = encode_frame(FrameKind.REQUEST, 0, b"\x04echo" + F64.pack(0) + PAYLOAD)
    ids = iter(range(1, calls + in_flight + 1))

    async def call() -> bytes:
        rid = next(ids)
        future: asyncio.Future[bytes] = loop.create_future()
        protocol.waiting[rid] = future
        transport.write(request[:5] + rid.to_bytes(4, "big") + request[9:])
        return await future

    return await _per_call(call, calls, in_flight)


async def native_dualio(calls: int, in_flight: int) -> float:
    loop = asyncio.get_running_loop()
    options = ConnectOptions("fake", 1, 10.0, None, None, None, DEFAULT_MAX_FRAME_SIZE, 15.0)
    conn = AsyncioConnection(loop, options)
    conn.connection_made(FakeTransport(loop, conn))
    welcome = conn._table.handshake.waiter = loop.create_future()
    conn._write(conn._table.hello())
    await welcome
    client = AsyncClient("fake", 1, lazy=True)
    await client.open()
    client._conn = conn
    try:
        echo = client.echo
        return await _per_call(lambda: echo(PAYLOAD), calls, in_flight)
    finally:
        await client.aclose()


async def _per_call(call: Callable[[], Any], calls: int, in_flight: int) -> float:
    each = calls // in_flight

    async def user() -> None:
        for _ in range(each):
            if await call() != PAYLOAD:
                raise AssertionError("wrong answer")

    started = time.process_time()
    if in_flight == 1:
        await user()
    else:
        await asyncio.gather(*(user() for _ in range(in_flight)))
    return (time.process_time() - started) / (each * in_flight)


# -- rounds ------------------------------------------------------------------------------

@dataclass
class Figure:
    name: str
    raw: list[float]
    dualio: list[float]

    def own(self) -> list[float]:
        return sorted(d - r for d, r in zip(self.dualio, self.raw, strict=True))

    def line(self) -> str:
        def us(values: list[float]) -> str:
            med = statistics.median(values) * 1e6
            return f"{med:6.2f} ({min(values) * 1e6:5.2f}..{max(values) * 1e6:5.2f})"
        return f"{self.name:<28} {us(self.raw)}  {us(self.dualio)}  {us(self.own())}"


def measure(calls: int, rounds: int, in_flight: int) -> list[Figure]:
    figures = [Figure("sync", [], []), Figure("native, sequential", [], []),
               Figure(f"native, {in_flight} in flight", [], [])]
    for _ in range(rounds):  # interleaved: each round measures every figure, raw then dualio
        figures[0].raw.append(sync_raw(calls))
        figures[0].dualio.append(sync_dualio(calls))
        figures[1].raw.append(asyncio.run(native_raw(calls, 1)))
        figures[1].dualio.append(asyncio.run(native_dualio(calls, 1)))
        figures[2].raw.append(asyncio.run(native_raw(calls, in_flight)))
        figures[2].dualio.append(asyncio.run(native_dualio(calls, in_flight)))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dualio.lab.client_cost", description="the client's own CPU per call, no server"
    )
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--in-flight", type=int, default=100)
    args = parser.parse_args(argv)
    if args.calls < args.in_flight or args.rounds < 1 or args.in_flight < 1:
        parser.error("need --rounds >= 1, --in-flight >= 1 and --calls >= --in-flight")
    figures = measure(args.calls, args.rounds, args.in_flight)
    print(f"client CPU per call, µs: median (min..max) of {args.rounds} rounds of {args.calls} calls")
    print(f"{'':<28} {'raw loop':<21}  {'dualio':<21}  {'dualio - raw (own)':<21}")
    for figure in figures:
        print(figure.line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
