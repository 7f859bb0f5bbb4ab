"""Small helpers shared by the contract cases."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

import anyio.to_thread

from dualio_transports.dualio_protocol.frames import FrameKind
from dualio_transports.wire.call_table import CallTable
from tests.contract.faces import Face
from tests.scripted_peer import ScriptedPeer

PROMPT = 1.0  # "promptly": a failure reaches the caller within this many seconds
TIMER_SLACK = 0.01  # a timeout may fire this much early (clock granularity)


async def timed(fn: Callable[[], Awaitable[object]]) -> tuple[Exception | None, float]:
    """Await ``fn()``: the exception it raised (or None) and how long it took.
    Cancellation is not caught: it is not an outcome of the call."""
    started = time.monotonic()
    try:
        await fn()
    except Exception as exc:
        return exc, time.monotonic() - started
    return None, time.monotonic() - started


async def frame_arrives(peer: ScriptedPeer, kind: FrameKind, timeout: float = PROMPT) -> bool:
    """Whether the peer receives a frame of ``kind`` from the client within ``timeout``."""
    return await anyio.to_thread.run_sync(functools.partial(peer.wait_for, kind, timeout))


async def peer_finishes(peer: ScriptedPeer, timeout: float = PROMPT) -> bool:
    """Whether the peer's script ends (typically: the client hung up) within ``timeout``."""
    return await anyio.to_thread.run_sync(peer.wait_finished, timeout)


def call_table(face: Face) -> CallTable[Any]:
    """The call table of the connection ``face``'s client uses now (through the adapters
    that wrap a connection: the emulation's, the portal's)."""
    conn: Any = face.client._conn
    while not hasattr(conn, "_table"):
        conn = conn._conn
    return cast("CallTable[Any]", conn._table)
