"""The columns of the lab: every way a program can call the dualio service.

SDK modes go through the public API (``Client``, ``AsyncClient``); peers are what
a user might reach for instead, measured in the same run.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from dualio import AsyncClient
from dualio.lab import asyncio_peer
from dualio.lab.drivers import Outcome, SyncCall, Workload, drive_async, drive_threads, payload
from dualio_sync import Client
from transports.emulate import default_workers

ANYIO_DEFAULT_TOKENS = 40


@dataclass(frozen=True)
class Mode:
    name: str
    family: str  # "sync", "threads", "emulated", "native", "peer"
    description: str
    backend: str = "asyncio"  # asyncio, uvloop, trio; "" for thread-based modes
    workers: int | None = None  # W, for modes bounded by a pool
    client_options: dict[str, Any] = field(default_factory=dict)
    needs: str = ""  # an optional module this mode needs

    def missing(self) -> str:
        """Why this mode cannot run here, or ""."""
        if self.needs and importlib.util.find_spec(self.needs) is None:
            return f"{self.needs} is not installed (pip install 'dualio[{self.needs}]')"
        return ""

    def run(self, host: str, port: int, work: Workload) -> Outcome:
        return _RUNNERS[self.family](self, host, port, work)


def _anyio_run(mode: Mode, fn: Callable[[], Any]) -> Any:
    if mode.backend == "uvloop":
        return anyio.run(fn, backend="asyncio", backend_options={"use_uvloop": True})
    return anyio.run(fn, backend=mode.backend)


def _run_sync(mode: Mode, host: str, port: int, work: Workload) -> Outcome:
    sequential = Workload(work.total, 1, work.delay, work.timeout)
    with Client(host, port, timeout=work.timeout) as client:
        return drive_threads(lambda: (_echo_call(client), _nothing), sequential)


def _run_threads(mode: Mode, host: str, port: int, work: Workload) -> Outcome:
    def connect() -> tuple[SyncCall, Callable[[], None]]:
        client = Client(host, port, timeout=work.timeout, connect_timeout=30)
        return _echo_call(client), client.close

    return drive_threads(connect, work)


def _echo_call(client: Client) -> SyncCall:
    return lambda data, delay: client.echo(data, delay=delay)


def _nothing() -> None:
    pass


def _run_async_client(mode: Mode, host: str, port: int, work: Workload) -> Outcome:
    async def main() -> Outcome:
        async with AsyncClient(host, port, timeout=work.timeout, **mode.client_options) as client:
            return await drive_async(lambda data, delay: client.echo(data, delay=delay), work)

    result: Outcome = _anyio_run(mode, main)
    return result


def _run_to_thread(mode: Mode, host: str, port: int, work: Workload) -> Outcome:
    async def main() -> Outcome:
        with Client(host, port, timeout=work.timeout) as client:
            if mode.name == "asyncio.to_thread":

                async def call(data: bytes, delay: float) -> bytes:
                    return await asyncio.to_thread(client.echo, data, delay=delay)
            else:

                async def call(data: bytes, delay: float) -> bytes:
                    echo = functools.partial(client.echo, data, delay=delay)
                    return await anyio.to_thread.run_sync(echo)

            return await drive_async(call, work)

    result: Outcome = _anyio_run(mode, main)
    return result


def _run_asyncio_peer(mode: Mode, host: str, port: int, work: Workload) -> Outcome:
    async def main() -> Outcome:
        peer = await asyncio_peer.connect(host, port)
        try:
            return await drive_async(peer.echo, work)
        finally:
            assert peer.transport is not None
            peer.transport.close()

    result: Outcome = _anyio_run(mode, main)
    return result


def _run_raw_socket(mode: Mode, host: str, port: int, work: Workload) -> Outcome:
    """A blocking socket loop with no SDK at all: the floor for sequential calls."""
    header = struct.Struct(">IBI")
    sock = socket.create_connection((host, port), timeout=work.timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def receive_frame() -> tuple[int, bytes]:
        head = _recv_exactly(sock, 9)
        length, kind, _ = header.unpack(head)
        return kind, _recv_exactly(sock, length - 5)

    try:
        sock.sendall(header.pack(7, 1, 0) + b"\x00\x01")
        receive_frame()
        outcome = Outcome()
        started = time.perf_counter()
        for index in range(work.total):
            sent = payload(index)
            body = b"\x04echo" + struct.pack(">d", work.delay) + sent
            began = time.perf_counter()
            sock.sendall(header.pack(5 + len(body), 3, index + 1) + body)
            kind, answer = receive_frame()
            outcome.latencies.append(time.perf_counter() - began)
            if kind != 4 or answer != sent:
                outcome.wrong += 1
        outcome.wall = time.perf_counter() - started
        return outcome
    finally:
        sock.close()


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("server closed the connection")
        data += chunk
    return bytes(data)


_RUNNERS: dict[str, Callable[[Mode, str, int, Workload], Outcome]] = {
    "sync": _run_sync,
    "threads": _run_threads,
    "emulated": _run_async_client,
    "native": _run_async_client,
    "to_thread": _run_to_thread,
    "asyncio-peer": _run_asyncio_peer,
    "raw-socket": _run_raw_socket,
}


def all_modes(workers: int | None = None) -> list[Mode]:
    """Every mode, in table order; ``workers`` adds an emulated pool of that size."""
    w = default_workers()
    modes = [
        Mode("sync", "sync", "one thread, one call at a time", backend=""),
        Mode("threads", "threads", "a thread and a connection per concurrent call", backend=""),
        Mode("emulated-pool", "emulated", f"round trip on the default executor (W={w})",
             workers=w, client_options={"transport": "emulated", "emulation": "pool"}),
    ]
    if workers is not None:
        modes.append(Mode(
            f"emulated-pool-w{workers}", "emulated", f"round trip on a pool of W={workers}",
            workers=workers,
            client_options={"transport": "emulated", "emulation": "pool", "max_workers": workers},
        ))
    modes += [
        Mode("emulated-thread", "emulated", "a fresh thread per call",
             client_options={"transport": "emulated", "emulation": "thread"}),
        Mode("emulated-callback", "emulated", "a worker only writes; the reader completes",
             client_options={"transport": "emulated", "emulation": "callback"}),
        Mode("native-asyncio", "native", "anyio transport on asyncio"),
        Mode("native-uvloop", "native", "anyio transport on uvloop", backend="uvloop",
             needs="uvloop"),
        Mode("native-trio", "native", "anyio transport on trio", backend="trio", needs="trio"),
        Mode("asyncio.to_thread", "to_thread", f"sync Client through asyncio.to_thread (W={w})",
             workers=w),
        Mode("anyio.to_thread", "to_thread",
             f"sync Client through anyio.to_thread.run_sync (W={ANYIO_DEFAULT_TOKENS})",
             workers=ANYIO_DEFAULT_TOKENS),
        Mode("asyncio-protocol", "asyncio-peer", "hand-written asyncio Protocol client (floor)"),
        Mode("raw-socket", "raw-socket", "blocking socket loop, no SDK (sequential floor)",
             backend=""),
    ]
    return modes
