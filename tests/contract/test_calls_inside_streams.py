"""The contract, on every transport: calls made while streams are open, from inside a
stream's loop (see test_calls.py for how the cases run on every transport).

A caller that makes a call between two items of its own stream needs the answer to
that call while the stream's items keep arriving ahead of it: no transport may make
the call wait for the stream's consumer, who is the caller itself.
"""

from __future__ import annotations

import anyio
import pytest

from dualio_transports.dualio_protocol.methods import word_at
from tests.contract.faces import Face

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]


def expected(count: int) -> list[str]:
    return [word_at(i) for i in range(count)]


async def test_a_call_inside_a_stream_loop_is_answered_and_the_stream_goes_on(client: Face) -> None:
    with anyio.fail_after(10):
        got = await client.words(1000, 0, echo_every=97)
    assert got == expected(1000)


async def test_calls_inside_many_open_streams_some_left_early(client: Face) -> None:
    """Eight streams at once (more than the emulation's default pool has workers), half
    of them left early, each making an ``echo`` between its items."""
    results: dict[int, list[str]] = {}

    async def one(n: int) -> None:
        take = 150 if n % 2 else None
        results[n] = await client.words(400, 0, take=take, echo_every=37 + n)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            for n in range(8):
                tg.start_soon(one, n)
    for n, got in results.items():
        assert got == expected(150 if n % 2 else 400), n
    assert len(results) == 8
    assert await client.echo(b"after") == b"after"
