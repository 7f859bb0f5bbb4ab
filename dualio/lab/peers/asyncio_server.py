"""A minimal hand-written asyncio server of the dualio wire format: ``echo`` only.

The floor the reference server (``dualio serve``) is measured against: one asyncio
Protocol per connection, HELLO answered with WELCOME and each ``echo`` request with
its data (after its delay), nothing else. No limits, no checks, no counters, no
goodbye: what the protocol costs a Python server with nothing added. It lives in the
lab on purpose; it is not a server anyone should run.

    python -m dualio.lab.peers.asyncio_server --port 0    # prints "listening on HOST:PORT"
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import struct
from typing import cast

from dualio.lab.peers.handwritten_frames import HEADER, HELLO, REQUEST, RESPONSE, WELCOME

_WELCOME = HEADER.pack(5 + 6, WELCOME, 0) + struct.pack(">HI", 1, 16 * 1024 * 1024)
_ECHO = b"\x04echo"
_DELAY = struct.Struct(">d")


class EchoPeer(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        pos = 0
        while len(buffer) - pos >= 9:
            length, kind, rid = HEADER.unpack_from(buffer, pos)
            end = pos + 4 + length
            if end > len(buffer):
                break
            if kind == HELLO:
                self._send(_WELCOME)
            elif kind == REQUEST and buffer.startswith(_ECHO, pos + 9):
                at = pos + 9 + len(_ECHO)
                (delay,) = _DELAY.unpack_from(buffer, at)
                answer = HEADER.pack(5 + end - at - 8, RESPONSE, rid) + bytes(buffer[at + 8 : end])
                if delay > 0:
                    asyncio.get_running_loop().call_later(delay, self._send, answer)
                else:
                    self._send(answer)
            pos = end
        del buffer[:pos]

    def _send(self, frame: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame)


async def serve(host: str, port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(EchoPeer, host, port)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"listening on {host}:{server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
