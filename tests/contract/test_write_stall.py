"""One bound on a write the peer does not take, on every transport.

A peer that stops reading while a request is larger than the socket buffers leaves
the write without progress. Whatever the call's own timeout (here none, and no
keepalive either), the connection fails with ``ConnectionLost`` once the write
made no progress for ``WRITE_STALL_LIMIT``: the blocking and anyio transports
count it per send (``FrameWrite``), the asyncio fast path and the portal while
their transport's buffer does not shrink.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from dualio_transports.wire import timing
from dualio_transports.wire.errors import ConnectionLost
from tests.contract.faces import Transport
from tests.scripted_peer import ScriptedPeer, stall

LIMIT = 0.5

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(20)]


async def test_a_stalled_write_without_a_timeout_fails_its_connection_after_the_stall_limit(
    transport: Transport, scripted: Callable[..., ScriptedPeer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timing, "WRITE_STALL_LIMIT", LIMIT)
    peer = scripted(stall())
    client = await transport.connect(peer.address, timeout=None, keepalive=None)
    try:
        started = time.monotonic()
        with pytest.raises(ConnectionLost, match=r"no progress for 0\.5s"):
            await client.echo(b"x" * (15 << 20))  # more than the socket buffers hold
        took = time.monotonic() - started
        assert LIMIT <= took < LIMIT + 1.5, took
    finally:
        await client.aclose()
