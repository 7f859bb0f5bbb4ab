"""Small helpers shared by the contract cases."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable

import anyio.to_thread

from dualio_transports.dualio_protocol.frames import FrameKind
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
