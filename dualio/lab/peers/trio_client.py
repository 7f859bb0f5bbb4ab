"""A minimal hand-written trio client of the dualio wire format.

The trio floor the native transport on trio is measured against, in the shape a trio
user would write: one reader task routing answers to waiting calls, one writer task
sending whatever calls have buffered since its last send. No timeouts, no
cancellation handling, no checks beyond what a benchmark needs. It lives in the lab
on purpose; it is not part of the SDK.
"""

from __future__ import annotations

from types import TracebackType

import trio

from dualio.lab.peers.handwritten_frames import HEADER, HELLO_FRAME, RESPONSE, WELCOME, echo_request


class _Waiter:
    __slots__ = ("answer", "done", "error")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.answer = b""
        self.error: str | None = None


class TrioPeer:
    """``async with TrioPeer.connect(host, port) as peer: await peer.echo(data)``."""

    def __init__(self, stream: trio.SocketStream, nursery: trio.Nursery) -> None:
        self._stream = stream
        self._nursery = nursery
        self._outgoing = bytearray()
        self._wanted = trio.Event()  # set when _outgoing has bytes for the writer
        self._waiting: dict[int, _Waiter] = {}
        self._next_id = 1
        self._welcome = trio.Event()

    @classmethod
    def connect(cls, host: str, port: int) -> _Connecting:
        return _Connecting(host, port)

    async def echo(self, data: bytes, delay: float = 0.0) -> bytes:
        rid = self._next_id
        self._next_id += 1
        waiter = self._waiting[rid] = _Waiter()
        self._send(echo_request(rid, data, delay))
        await waiter.done.wait()
        if waiter.error is not None:
            raise RuntimeError(waiter.error)
        return waiter.answer

    def _send(self, frame: bytes) -> None:
        self._outgoing += frame
        self._wanted.set()

    async def _write(self) -> None:
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            data, self._outgoing = bytes(self._outgoing), bytearray()
            await self._stream.send_all(data)

    async def _read(self) -> None:
        buffer = bytearray()
        while True:
            data = await self._stream.receive_some(1 << 16)
            if not data:
                for lost in self._waiting.values():
                    lost.error = "connection lost"
                    lost.done.set()
                return
            buffer += data
            pos = 0
            while len(buffer) - pos >= 9:
                length, kind, rid = HEADER.unpack_from(buffer, pos)
                end = pos + 4 + length
                if end > len(buffer):
                    break
                payload = bytes(buffer[pos + 9 : end])
                pos = end
                if kind == WELCOME:
                    self._welcome.set()
                    continue
                waiter = self._waiting.pop(rid, None)
                if waiter is None:
                    continue
                if kind == RESPONSE:
                    waiter.answer = payload
                else:
                    waiter.error = f"frame kind {kind}: {payload!r}"
                waiter.done.set()
            del buffer[:pos]


class _Connecting:
    """Connects, says hello and starts the reader and the writer; leaving closes all."""

    def __init__(self, host: str, port: int) -> None:
        self._host, self._port = host, port
        self._nursery_manager = trio.open_nursery()
        self._peer: TrioPeer | None = None

    async def __aenter__(self) -> TrioPeer:
        stream = await trio.open_tcp_stream(self._host, self._port)
        nursery = await self._nursery_manager.__aenter__()
        peer = self._peer = TrioPeer(stream, nursery)
        nursery.start_soon(peer._read)
        nursery.start_soon(peer._write)
        peer._send(HELLO_FRAME)
        await peer._welcome.wait()
        return peer

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> bool | None:
        assert self._peer is not None
        self._peer._nursery.cancel_scope.cancel()
        try:
            return await self._nursery_manager.__aexit__(kind, error, trace)
        finally:
            await self._peer._stream.aclose()

