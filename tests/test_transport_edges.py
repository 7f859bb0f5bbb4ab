"""Edges of each transport: orderly close, backpressure under a timeout, queued workers."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import pytest

from dualio import AsyncClient, DualioTimeout
from dualio_sync import Client
from tests.conftest import ServerProcess
from transports.wire.client_protocol import WELCOME
from transports.wire.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    PROTOCOL_VERSION,
    FrameDecoder,
    FrameKind,
    encode_frame,
)


class RecordingPeer:
    """Answers the handshake, then records every frame the client sends until EOF.
    With ``read=False`` it stops reading after the handshake (a stalled peer)."""

    def __init__(self, read: bool = True) -> None:
        self.read = read
        self.frames: list[FrameKind] = []
        self.closed = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = self._listener.getsockname()[:2]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        conn, _ = self._listener.accept()
        decoder = FrameDecoder()
        conn.settimeout(10)
        with conn:
            conn.recv(1024)
            conn.sendall(encode_frame(FrameKind.WELCOME, 0,
                                      WELCOME.pack(PROTOCOL_VERSION, DEFAULT_MAX_FRAME_SIZE)))
            if not self.read:
                self.closed.wait(10)
                return
            try:
                while data := conn.recv(65536):
                    self.frames += [frame.kind for frame in decoder.feed(data)]
            except OSError:
                pass
        self.closed.set()

    def stop(self) -> None:
        self.closed.set()
        self._thread.join(10)
        self._listener.close()


def test_sync_client_says_goodbye() -> None:
    peer = RecordingPeer()
    Client(*peer.address).close()
    assert peer.closed.wait(5)
    peer.stop()
    assert peer.frames == [FrameKind.CLOSE]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("options", [{"transport": "native"}, {"transport": "anyio"},
                                     {"transport": "emulated"}])
async def test_async_client_says_goodbye(
    options: dict[str, Any], anyio_backend: str
) -> None:
    peer = RecordingPeer()
    async with AsyncClient(*peer.address, **options):
        pass
    assert await anyio.to_thread.run_sync(peer.closed.wait, 5)
    peer.stop()
    assert peer.frames == [FrameKind.CLOSE]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_timeout_holds_while_the_socket_cannot_drain() -> None:
    """A peer that stops reading fills the buffers; a call still ends at its timeout."""
    peer = RecordingPeer(read=False)
    try:
        async with AsyncClient(*peer.address, timeout=0.5) as client:
            with anyio.fail_after(20):
                for _ in range(200):  # queue requests until writing is paused
                    with anyio.move_on_after(0.01):
                        await client.echo(b"x" * (1 << 20))
                started = time.perf_counter()
                with pytest.raises(DualioTimeout):
                    await client.ping(timeout=0.3)
                assert time.perf_counter() - started < 1.5
    finally:
        peer.stop()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_callback_timeout_covers_waiting_for_a_worker(server: ServerProcess) -> None:
    executor = ThreadPoolExecutor(1)
    try:
        async with AsyncClient(*server.address, transport="emulated", emulation="callback",
                               executor=executor) as client:
            executor.submit(time.sleep, 1.5)  # the only worker is busy
            started = time.perf_counter()
            with pytest.raises(DualioTimeout):
                await client.echo(b"x", timeout=0.2)
            assert time.perf_counter() - started < 1.0
            assert await client.echo(b"after", timeout=5) == b"after"
    finally:
        executor.shutdown()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", [("asyncio", {"use_uvloop": True})])
async def test_native_on_uvloop(server: ServerProcess) -> None:
    pytest.importorskip("uvloop")
    async with AsyncClient(*server.address) as client:
        async with anyio.create_task_group() as tg:
            for i in range(50):
                tg.start_soon(client.echo, str(i).encode())
        assert await client.echo(b"uv") == b"uv"
        assert [w async for w in client.words(3)] == ["alpha", "hotel", "oscar"]
