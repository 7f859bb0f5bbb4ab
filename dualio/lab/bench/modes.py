"""The columns of the lab: every way a program can call the dualio service.

SDK modes go through the public API (``Client``, ``AsyncClient``); peers are what
a user might reach for instead, measured in the same run.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import importlib.util
import math
import socket
import struct
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

import anyio

from dualio import AsyncClient, ConnectError
from dualio.lab.bench import anchors
from dualio.lab.bench.operations import Blob, Echo, Operation, payload
from dualio.lab.bench.workloads import Outcome, SyncCall, Workload, drive_async, drive_threads, run_on
from dualio.lab.peers import asyncio_client
from dualio_sync import Client
from dualio_transports.dualio_protocol.blob import blob_bytes
from dualio_transports.emulation.adapter import default_workers
from dualio_transports.wire.errors import causes

ANYIO_DEFAULT_TOKENS = 40


RETRIES = 5


def _transient(exc: BaseException) -> bool:
    return getattr(causes(exc)[-1], "errno", None) in (
        errno.ECONNREFUSED, errno.ECONNRESET, errno.ETIMEDOUT, errno.EAGAIN
    )


def open_client(host: str, port: int, timeout: float, options: dict[str, Any] | None = None) -> Client:
    """A sync Client, retrying connects that fail transiently (a full listen backlog)."""
    for attempt in range(RETRIES):
        try:
            return Client(host, port, timeout=timeout, connect_timeout=30, **(options or {}))
        except ConnectError as exc:
            if attempt == RETRIES - 1 or not _transient(exc):
                raise
            time.sleep(0.05 * 2**attempt)
    raise AssertionError("unreachable")


async def open_async_client(host: str, port: int, timeout: float, options: dict[str, Any]) -> AsyncClient:
    for attempt in range(RETRIES):
        client = AsyncClient(host, port, timeout=timeout, connect_timeout=30, **options)
        try:
            return await client.open()
        except ConnectError as exc:
            if attempt == RETRIES - 1 or not _transient(exc):
                raise
            await anyio.sleep(0.05 * 2**attempt)
    raise AssertionError("unreachable")


def not_installed(modules: Sequence[str], extra: str) -> str:
    """Why a mode needing ``modules`` cannot run here (the first one not installed), or ""."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'dualio[{extra}]')"
    return ""


@dataclass(frozen=True)
class Mode:
    name: str
    family: str  # sync, shared, threads, emulated, native, to_thread, asyncio-peer, trio-peer, raw-socket
    description: str
    backend: str = "asyncio"  # asyncio, asyncio-eager, uvloop, trio; "" for thread-based modes
    workers: int | None = None  # W, for modes bounded by a pool
    client_options: dict[str, Any] = field(default_factory=dict)
    needs: str = ""  # an optional module this mode needs
    through: str = ""  # an anchor (dualio.lab.bench.anchors) the native AsyncClient is called through
    python: tuple[int, int] = (3, 11)  # the oldest Python that has what the mode needs

    def missing(self) -> str:
        """Why this mode cannot run here, or ""."""
        if sys.version_info < self.python:
            major, minor = self.python
            return f"needs Python {major}.{minor} or newer"
        return not_installed((self.needs,) if self.needs else (), self.needs)

    def run(self, host: str, port: int, work: Workload, op: Operation | None = None) -> Outcome:
        runner = _RUNNERS[self.family]
        if not self.through:
            return runner(self, host, port, work, op or Echo(work.delay))
        with anchors.hosting(self.through) as opener:
            _anchor_openers[self.name] = opener
            try:
                return runner(self, host, port, work, op or Echo(work.delay))
            finally:
                del _anchor_openers[self.name]


_anchor_openers: dict[str, anchors.Opener] = {}
"""The anchor modes running now, and what opens a client on each one's loop thread."""


def _open(mode: Mode, host: str, port: int, timeout: float) -> Client:
    if mode.through:  # offers the unary methods of Client that the operations call
        return cast(Client, _anchor_openers[mode.name](host, port, timeout))
    return open_client(host, port, timeout, mode.client_options)


def _eager_loop() -> asyncio.AbstractEventLoop:
    """An asyncio loop whose tasks start running at once, in the call that creates them
    (``asyncio.eager_task_factory``, Python 3.12): a task that finishes without waiting
    is never scheduled."""
    loop = asyncio.new_event_loop()
    loop.set_task_factory(asyncio.eager_task_factory)  # type: ignore[attr-defined,unused-ignore]
    return loop


def _anyio_run(mode: Mode, fn: Callable[[], Awaitable[Outcome]]) -> Outcome:
    if mode.backend == "asyncio-eager":
        return anyio.run(fn, backend="asyncio", backend_options={"loop_factory": _eager_loop})
    return run_on(mode.backend, fn)


def _sync_caller(mode: Mode, host: str, port: int, work: Workload, op: Operation,
                 shared: Client | None) -> tuple[SyncCall, Callable[[], None]]:
    if op.per_request_connection:
        def call(index: int) -> bool:
            with _open(mode, host, port, work.timeout) as client:
                return op.run_sync(client, index)

        return call, _nothing
    client = shared or _open(mode, host, port, work.timeout)
    return functools.partial(op.run_sync, client), (_nothing if shared else client.close)


def _run_sync(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    sequential = Workload(work.total, 1, work.delay, work.timeout)
    with _open(mode, host, port, work.timeout) as client:
        return drive_threads(lambda: _sync_caller(mode, host, port, work, op, client), sequential)


def _run_threads(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    return drive_threads(lambda: _sync_caller(mode, host, port, work, op, None), work)


def _run_shared(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    with _open(mode, host, port, work.timeout) as client:
        return drive_threads(lambda: _sync_caller(mode, host, port, work, op, client), work)


def _nothing() -> None:
    pass


def _run_async_client(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    options = dict(mode.client_options)
    shared: ThreadPoolExecutor | None = None
    if op.per_request_connection and "max_workers" in options:
        # One pool of W for the whole run, not one per connection.
        shared = ThreadPoolExecutor(options.pop("max_workers"), thread_name_prefix="lab-pool")
        options["executor"] = shared

    async def main() -> Outcome:
        if op.per_request_connection:
            async def call(index: int) -> bool:
                client = await open_async_client(host, port, work.timeout, options)
                async with client:
                    return await op.run_async(client, index)

            return await drive_async(call, work)
        client = await open_async_client(host, port, work.timeout, options)
        async with client:
            return await drive_async(functools.partial(op.run_async, client), work)

    try:
        return _anyio_run(mode, main)
    finally:
        if shared is not None:
            shared.shutdown()


def _run_to_thread(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    async def main() -> Outcome:
        with open_client(host, port, work.timeout) as client:
            blocking = functools.partial(op.run_sync, client)
            if mode.name == "asyncio.to_thread":

                async def call(index: int) -> bool:
                    return await asyncio.to_thread(blocking, index)
            else:

                async def call(index: int) -> bool:
                    return await anyio.to_thread.run_sync(blocking, index)

            return await drive_async(call, work)

    return _anyio_run(mode, main)


def _run_asyncio_peer(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    async def main() -> Outcome:
        if op.per_request_connection:
            async def connected_call(index: int) -> bool:
                own = await asyncio_client.connect(host, port)
                try:
                    sent = payload(index)
                    return await own.echo(sent, work.delay) == sent
                finally:
                    assert own.transport is not None
                    own.transport.close()

            return await drive_async(connected_call, work)
        peer = await asyncio_client.connect(host, port)

        async def call(index: int) -> bool:
            sent = payload(index)
            return await peer.echo(sent, work.delay) == sent

        try:
            return await drive_async(call, work)
        finally:
            assert peer.transport is not None
            peer.transport.close()

    return _anyio_run(mode, main)


def _run_trio_peer(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    from dualio.lab.peers.trio_client import TrioPeer

    async def main() -> Outcome:
        if op.per_request_connection:
            async def connected_call(index: int) -> bool:
                async with TrioPeer.connect(host, port) as own:
                    sent = payload(index)
                    return await own.echo(sent, work.delay) == sent

            return await drive_async(connected_call, work)
        async with TrioPeer.connect(host, port) as peer:
            async def call(index: int) -> bool:
                sent = payload(index)
                return await peer.echo(sent, work.delay) == sent

            return await drive_async(call, work)

    return _anyio_run(mode, main)


_RAW_LARGEST = 64 * 1024 * 1024


def _run_raw_socket(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    """A blocking socket loop with no SDK at all: the floor for sequential calls. Plain
    blocking reads into one buffer (the kernel's SO_RCVTIMEO bounds each), so a call
    costs a send and, almost always, one receive; a large answer (``blob``) is received
    into a buffer of its own, sized from its header."""
    header = struct.Struct(">IBI")
    buffer = bytearray(1 << 16)
    view = memoryview(buffer)
    seconds = max(1, math.ceil(work.timeout))

    def dial() -> socket.socket:
        made = socket.create_connection((host, port), timeout=work.timeout)
        made.settimeout(None)  # a Python-level timeout would poll before every receive
        made.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", seconds, 0))
        made.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return made

    sock = dial()

    def fill(into: memoryview, filled: int, end: int) -> int:
        while filled < end:
            got = sock.recv_into(into[filled:])
            if not got:
                raise ConnectionError("server closed the connection")
            filled += got
        return filled

    def receive_frame() -> tuple[int, bytes]:
        filled = fill(view, 0, 9)
        length, kind, _ = header.unpack_from(buffer)
        if 4 + length <= len(buffer):
            fill(view, filled, 4 + length)
            return kind, bytes(view[9 : 4 + length])
        if length > _RAW_LARGEST:
            raise ConnectionError(f"an answer of {length:,} bytes, over the raw loop's limit")
        large = memoryview(bytearray(length - 5))  # a large answer's own buffer, sized from its header
        large[: filled - 9] = view[9:filled]
        fill(large, filled - 9, length - 5)
        return kind, bytes(large)

    hello = header.pack(7, 1, 0) + b"\x00\x01"
    try:
        sock.sendall(hello)
        receive_frame()
        outcome = Outcome()
        started, cpu = time.perf_counter(), time.process_time()
        for index in range(work.total):
            if isinstance(op, Blob):  # the seed is the index, and every byte is checked, as Blob does
                body = b"\x04blob" + struct.pack(">II", op.size, index)
                sent = blob_bytes(op.size, index)
            else:
                sent = payload(index)
                body = b"\x04echo" + struct.pack(">d", work.delay) + sent
            began = time.perf_counter()
            if op.per_request_connection:  # connect and handshake, then the call, then close
                sock.close()
                sock = dial()
                sock.sendall(hello)
                receive_frame()
            sock.sendall(header.pack(5 + len(body), 3, index + 1) + body)
            kind, answer = receive_frame()
            outcome.latencies.append(time.perf_counter() - began)
            if kind != 4 or answer != sent:
                outcome.wrong += 1
        outcome.wall = time.perf_counter() - started
        outcome.cpu = time.process_time() - cpu
        return outcome
    finally:
        view.release()
        sock.close()


def _run_thread_floor(mode: Mode, host: str, port: int, work: Workload, op: Operation) -> Outcome:
    """What the thread modes pay before any call: N threads released at once, each only
    sleeping Y, timed as they are."""
    def sleep(index: int) -> bool:
        time.sleep(work.delay)
        return True

    return drive_threads(lambda: (sleep, _nothing), work)


THREAD_FLOOR = Mode("thread-floor", "thread-floor",
                    "as threads, each thread only sleeping Y: no call (the floor of the thread modes)",
                    backend="")
"""Measured beside the thread modes' fan-out: what N CPython threads cost by themselves,
the floor F of their model F + N·c."""


_RUNNERS: dict[str, Callable[[Mode, str, int, Workload, Operation], Outcome]] = {
    "sync": _run_sync,
    "threads": _run_threads,
    "shared": _run_shared,
    "emulated": _run_async_client,
    "native": _run_async_client,
    "to_thread": _run_to_thread,
    "asyncio-peer": _run_asyncio_peer,
    "trio-peer": _run_trio_peer,
    "raw-socket": _run_raw_socket,
    "thread-floor": _run_thread_floor,
}


def all_modes(workers: int | None = None) -> list[Mode]:
    """Every mode, in table order; ``workers`` adds an emulated pool of that size."""
    w = default_workers()
    modes = [
        Mode("sync", "sync", "one thread, one call at a time", backend=""),
        Mode("threads", "threads", "a thread and a connection per concurrent call", backend=""),
        Mode("sync-shared", "shared", "a thread per concurrent call, all on one Client (blob only)",
             backend=""),
        Mode("portal", "sync", "as sync, each call run on the process's portal event-loop thread",
             backend="", client_options={"transport": "portal"}),
        Mode("portal-threads", "threads", "as threads, every connection on the one portal event-loop thread",
             backend="", client_options={"transport": "portal"}),
        Mode("anyio-portal", "sync", "as sync, AsyncClient through anyio's BlockingPortal (one loop thread)",
             backend="", through="anyio-portal"),
        Mode("anyio-portal-threads", "threads", "as threads, AsyncClient through anyio's BlockingPortal",
             backend="", through="anyio-portal"),
        Mode("synchronicity", "sync", "as sync, AsyncClient wrapped by synchronicity (one loop thread)",
             backend="", through="synchronicity", needs="synchronicity"),
        Mode("synchronicity-threads", "threads", "as threads, AsyncClient wrapped by synchronicity",
             backend="", through="synchronicity", needs="synchronicity"),
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
        Mode("native-asyncio", "native", "asyncio.Protocol fast path on asyncio"),
        Mode("native-uvloop", "native", "asyncio.Protocol fast path on uvloop", backend="uvloop",
             needs="uvloop"),
        Mode("native-asyncio-eager", "native", "asyncio.Protocol fast path, asyncio's eager task factory",
             backend="asyncio-eager", python=(3, 12)),
        Mode("native-anyio", "native", "anyio transport on asyncio",
             client_options={"transport": "anyio"}),
        Mode("native-trio", "native", "anyio transport on trio", backend="trio", needs="trio"),
        Mode("asyncio.to_thread", "to_thread", f"sync Client through asyncio.to_thread (W={w})",
             workers=w),
        Mode("anyio.to_thread", "to_thread",
             f"sync Client through anyio.to_thread.run_sync (W={ANYIO_DEFAULT_TOKENS})",
             workers=ANYIO_DEFAULT_TOKENS),
        Mode("asyncio-protocol", "asyncio-peer", "hand-written asyncio Protocol client (floor)"),
        Mode("trio-peer", "trio-peer", "hand-written trio client: a reader task, a writer task (trio floor)",
             backend="trio", needs="trio"),
        Mode("raw-socket", "raw-socket", "blocking socket loop, no SDK (sequential floor)",
             backend=""),
    ]
    return modes
