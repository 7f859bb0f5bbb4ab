"""A minimal hand-written asyncio Protocol client of the dualio wire format.

The pure-Python floor the native transport is measured against: no timeouts,
no cancellation handling, no checks beyond what a benchmark needs. It lives in
the lab on purpose; it is not part of the SDK.
"""

from __future__ import annotations

import asyncio
from typing import cast

from dualio.lab.peers.handwritten_frames import HEADER, HELLO_FRAME, RESPONSE, WELCOME, echo_request


class PeerProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiting: dict[int, asyncio.Future[bytes]] = {}
        self.next_id = 1
        self.welcome: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's stream transport has asyncio.Transport's methods without subclassing it
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(HELLO_FRAME)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
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
                self.welcome.set_result(None)
                continue
            future = self.waiting.pop(rid, None)
            if future is None or future.done():
                continue
            if kind == RESPONSE:
                future.set_result(payload)
            else:
                future.set_exception(RuntimeError(f"frame kind {kind}: {payload!r}"))
        del buffer[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("connection lost"))

    def echo(self, data: bytes, delay: float = 0.0) -> asyncio.Future[bytes]:
        rid = self.next_id
        self.next_id += 1
        assert self.transport is not None
        self.transport.write(echo_request(rid, data, delay))
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        return future


async def connect(host: str, port: int) -> PeerProtocol:
    loop = asyncio.get_running_loop()
    _, protocol = await loop.create_connection(PeerProtocol, host, port)
    await protocol.welcome
    return protocol
