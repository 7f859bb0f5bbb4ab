"""The blocking client against the threaded server model.

What every transport must do against a misbehaving or vanishing server (the
protocol violations, a server closing, resetting or never answering, connect
failures, server death, misrouting under timeouts against the async server) is
stated once in the contract suite, tests/contract/, and runs on the blocking
client there too. What stays here is specific to the blocking client and the
threaded server.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from dualio_sync import Client, DualioTimeout
from tests.conftest import ServerProcess

pytestmark = pytest.mark.timeout(30)

IO_TIMEOUT = 5.0
PROMPT = 1.0  # "promptly": a failure must reach the caller within this


def timed(fn: Callable[[], object]) -> tuple[BaseException | None, float]:
    """Run ``fn``; the exception it raised (or None) and how long it took."""
    started = time.monotonic()
    try:
        fn()
    except BaseException as exc:
        return exc, time.monotonic() - started
    return None, time.monotonic() - started


def test_timeout_then_every_answer_goes_to_its_own_call(threaded_server: ServerProcess) -> None:
    """The threaded server answers one request at a time, in order: a timed-out call's late
    answer comes in line with the next calls' answers, and must go nowhere."""
    with Client(*threaded_server.address, timeout=IO_TIMEOUT) as client:
        error, took = timed(lambda: client.sleep(1.0, timeout=0.2))
        assert isinstance(error, DualioTimeout), repr(error)
        assert 0.19 <= took < 0.2 + PROMPT
        assert not client.closed
        for i in range(100):
            payload = f"call {i} ".encode() * (i % 5 + 1)
            assert client.echo(payload) == payload
        # a second timed-out call whose late answer lands between later calls
        with pytest.raises(DualioTimeout):
            client.echo(b"late", delay=0.3, timeout=0.05)
        for i in range(100):
            payload = f"again {i}".encode()
            assert client.echo(payload, delay=0.005 if i % 10 == 0 else 0.0) == payload
        assert client.ping() < PROMPT
