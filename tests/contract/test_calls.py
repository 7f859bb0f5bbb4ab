"""The client-side contract, stated once and checked on every transport: calls and timeouts.

How the one source of truth works: each case is an async test against a
:class:`~tests.contract.faces.Face`, a "client under test" with the service
methods as coroutines. For ``AsyncClient`` the face forwards to it; for the
blocking ``dualio_sync.Client`` it runs each call in a worker thread, so the
blocking client's own timeouts and errors are what the case sees and concurrent
tasks are concurrent threads. ``tests/contract/conftest.py`` parametrises every
case over every transport (``faces.TRANSPORTS``: the blocking client, native on
asyncio, the anyio transport on asyncio, native on trio and on uvloop, and each
emulation on asyncio and on trio), and picks the event loop from the transport.
Cases only the async face can express (task cancellation) are marked
``async_only``; their blocking equivalents (a timeout, breaking out of
``for w in client.words(...)``) are cases of their own that run everywhere.
Writing the cases once against a face, rather than as sync tests generated from
async ones, keeps the timing and error assertions identical on both faces.

Real server where it fits; the scripted peer (tests/scripted_peer.py) where the
case needs what a real server never does or needs to see the frames on the wire.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
import pytest

from dualio import ConnectTimeout, DualioTimeout, ErrorCode, RemoteError
from dualio_transports.dualio_protocol.blob import blob_bytes
from dualio_transports.dualio_protocol.frames import FrameKind
from dualio_transports.dualio_protocol.methods import F64, word_at
from tests.contract.faces import Face, Transport
from tests.contract.helpers import PROMPT, TIMER_SLACK, frame_arrives, peer_finishes, timed
from tests.scripted_peer import ScriptedPeer, drain, echo_back, expect

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(20)]

Scripted = Callable[..., ScriptedPeer]


async def test_every_method(client: Face) -> None:
    assert await client.echo(b"hello") == b"hello"
    assert await client.echo(b"") == b""
    assert await client.upper("straße") == "STRASSE"
    await client.sleep(0.01)
    assert await client.blob(100_000, seed=5) == blob_bytes(100_000, 5)
    assert await client.words(20) == [word_at(i) for i in range(20)]
    assert await client.words(0) == []
    assert (await client.stats()).connections_open >= 1
    assert 0 < await client.ping() < PROMPT
    assert await client.call("echo", F64.pack(0.0) + b"raw") == b"raw"
    with pytest.raises(RemoteError) as info:
        await client.call("nope")
    assert info.value.code == ErrorCode.UNKNOWN_METHOD
    assert not client.closed
    assert await client.echo(b"after") == b"after"


async def test_large_answers_at_once_arrive_whole_and_stay_whole(client: Face) -> None:
    """Large payloads (each received into a buffer of its own, some of which the
    connection keeps for the next) among small answers, many at once: every answer
    is the right one, and none changes after it was given out."""
    sizes = [70_000, 1 << 20, 5 << 20, 300_000, 1 << 20, 65_536, 2 << 20, 100_000]
    got: dict[int, bytes] = {}
    echoes: dict[int, bytes] = {}

    async def fetch(i: int, size: int) -> None:
        got[i] = await client.blob(size, seed=i, verify=False, timeout=15)
        echoes[i] = await client.echo(b"e%d" % i)

    async with anyio.create_task_group() as tg:
        for i, size in enumerate(sizes):
            tg.start_soon(fetch, i, size)
    for i, size in enumerate(sizes):
        assert got[i] == blob_bytes(size, i), f"blob {i} of {size} bytes"
        assert echoes[i] == b"e%d" % i


# -- timeouts -------------------------------------------------------------------------


async def test_a_call_past_its_timeout_raises_and_leaves_the_client_usable(client: Face) -> None:
    error, took = await timed(lambda: client.sleep(3, timeout=0.3))
    assert isinstance(error, DualioTimeout), repr(error)
    assert 0.3 - TIMER_SLACK <= took < 0.3 + PROMPT
    assert not client.closed
    assert await client.echo(b"usable") == b"usable"
    assert 0 < await client.ping(timeout=5) < PROMPT


async def test_no_timeout_stays_unbounded_on_every_path(client: Face) -> None:
    """``timeout=None`` adds no deadline of a transport's own anywhere (the portal's
    backstop and the emulation's wait on its worker included): a call longer than the
    portal's backstop returns, and so does a stream whose items are as slow."""
    assert await client.sleep(0.4, timeout=None) is None
    assert await client.words(2, 0.3, timeout=None) == [word_at(0), word_at(1)]


async def test_a_timed_out_call_is_cancelled_on_the_wire(transport: Transport, scripted: Scripted) -> None:
    """The peer never answers the first call: it times out, says CANCEL, and keeps its id open;
    the next call gets another id and its own answer."""
    peer = scripted(
        expect(FrameKind.REQUEST), expect(FrameKind.CANCEL, same_id=True),
        expect(FrameKind.REQUEST), echo_back(), drain(),
    )
    client = await transport.connect(peer.address, timeout=5)
    try:
        error, took = await timed(lambda: client.echo(b"anyone?", timeout=0.3))
        assert isinstance(error, DualioTimeout), repr(error)
        assert 0.3 - TIMER_SLACK <= took < 0.3 + PROMPT
        assert await frame_arrives(peer, FrameKind.CANCEL)
        assert not client.closed
        assert await client.echo(b"next") == b"next"
    finally:
        await client.aclose()
    assert await peer_finishes(peer)
    assert peer.kinds == [FrameKind.HELLO, FrameKind.REQUEST, FrameKind.CANCEL, FrameKind.REQUEST,
                          FrameKind.CLOSE]
    first, cancel, second = peer.frames[1:4]
    assert cancel.id == first.id != second.id  # an open id is never used for another request


async def test_a_stream_timeout_bounds_each_item_not_the_whole_stream(client: Face) -> None:
    started = time.monotonic()
    assert await client.words(8, wait=0.1, timeout=0.4) == [word_at(i) for i in range(8)]
    assert time.monotonic() - started >= 0.7 - TIMER_SLACK  # longer than the timeout, in all


async def test_a_stream_whose_items_come_slower_than_its_timeout_times_out(client: Face) -> None:
    got: list[str] = []
    error, took = await timed(lambda: client.words(3, wait=2.0, timeout=0.3, into=got))
    assert isinstance(error, DualioTimeout), repr(error)
    assert got == [word_at(0)]  # the first item comes at once, the second too late
    assert 0.3 - TIMER_SLACK <= took < 0.3 + PROMPT
    assert not client.closed
    assert await client.echo(b"after") == b"after"


async def test_connect_timeout_when_the_peer_never_welcomes(transport: Transport, scripted: Scripted) -> None:
    peer = scripted(expect(FrameKind.HELLO), drain(), handshake=False)
    error, took = await timed(lambda: transport.connect(peer.address, connect_timeout=0.3))
    assert isinstance(error, ConnectTimeout), repr(error)
    assert 0.3 - TIMER_SLACK <= took < 0.3 + PROMPT
    assert await peer_finishes(peer)  # the client hung up: no socket left open


# -- no misrouted answers ---------------------------------------------------------------


async def test_concurrent_calls_with_timeouts_each_get_their_own_answer(client: Face) -> None:
    """Tasks (threads, on the blocking face) call at once; every tenth call times out on
    purpose and its answer arrives after the caller gave up, between later answers. A
    caller that could not run from its deadline until its answer came (a loaded machine
    starves a loop for that long) gets the answer that is there: its own."""
    workers, calls = 8, 40
    misrouted: list[tuple[bytes, bytes]] = []
    unexpected: list[BaseException | str] = []
    timed_out = starved = 0

    async def work(w: int) -> None:
        nonlocal timed_out, starved
        for i in range(calls):
            payload = f"worker {w} call {i} ".encode() + bytes([w, i]) * (i % 13)
            late = i % 10 == 7
            started = time.monotonic()
            try:
                if late:
                    answer = await client.echo(payload, delay=0.2, timeout=0.02)
                else:
                    answer = await client.echo(payload, delay=0.001 if i % 5 == 3 else 0.0, timeout=5)
            except DualioTimeout as exc:
                if late:
                    timed_out += 1
                else:
                    unexpected.append(exc)
                continue
            except Exception as exc:
                unexpected.append(exc)
                return
            if late:
                if time.monotonic() - started < 0.2:
                    unexpected.append(f"{w}/{i} did not time out")
                starved += 1
            if answer != payload:
                misrouted.append((payload, answer))

    with anyio.fail_after(15):
        async with anyio.create_task_group() as tg:
            for w in range(workers):
                tg.start_soon(work, w)
    assert unexpected == []
    assert misrouted == []
    assert timed_out + starved == workers * calls // 10 and timed_out > 0
    # the late answers arrive while this call waits, and are dropped, not delivered
    assert await client.echo(b"last", delay=0.3) == b"last"
    assert client.dropped > 0
    assert not client.closed


async def test_a_short_call_behind_a_long_one_ends_at_its_own_timeout(client: Face) -> None:
    """Two calls in flight on one connection: the long one is waited for (read for) first,
    and the short one, started after it, still ends at its own timeout, not when the long
    one's answer comes; the long one gets its answer, and the connection goes on."""
    outcomes: dict[str, tuple[Exception | None, float]] = {}

    async def call(name: str, timeout: float) -> None:
        outcomes[name] = await timed(lambda: client.echo(name.encode(), delay=1.5, timeout=timeout))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call, "long", 10.0)
            await anyio.sleep(0.1)  # the long call waits for its answer (reads, where a caller reads)
            tasks.start_soon(call, "short", 0.3)
    error, took = outcomes["short"]
    assert isinstance(error, DualioTimeout), repr(error)
    assert 0.3 - TIMER_SLACK <= took < 0.3 + 0.7, took  # far from the long call's 1.5 s
    assert outcomes["long"][0] is None, repr(outcomes["long"][0])
    assert await client.echo(b"after") == b"after"
