"""The contract, on every transport: giving up on a call or a stream (see test_calls.py for how
the cases run on every transport).

Task cancellation exists on the async face only (``async_only``); the blocking
face gives up by timing out (test_calls.py) or by leaving a ``words`` loop, which
is a case here for every transport.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

import anyio
import pytest

from dualio import CallCancelled, ErrorCode, RetryPolicy
from dualio.lab.common.fault_proxy import FaultProxy, Toxic
from dualio_sync import Client
from dualio_transports.dualio_protocol.frames import FrameKind
from dualio_transports.dualio_protocol.methods import word_at
from tests.conftest import ServerProcess
from tests.contract.faces import Face, Transport
from tests.contract.fault_matrix import BIG
from tests.contract.helpers import TIMER_SLACK, call_table, frame_arrives, peer_finishes
from tests.scripted_peer import ScriptedPeer, drain, echo_back, expect, reply, reply_error, stream_items

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(20)]

Scripted = Callable[..., ScriptedPeer]


async def cancel_scope_around(client: Face, peer: ScriptedPeer) -> None:
    """A call in a child task, cancelled from outside once its request has reached the peer."""
    finished: list[bytes] = []

    async def call() -> None:
        finished.append(await client.echo(b"first"))

    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            assert await frame_arrives(peer, FrameKind.REQUEST)
            scope.cancel()
    assert scope.cancelled_caught
    assert finished == []


async def fail_after_around(client: Face, peer: ScriptedPeer) -> None:
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.3):
            await client.echo(b"first")


@pytest.mark.async_only
@pytest.mark.parametrize(
    "give_up", [cancel_scope_around, fail_after_around], ids=["cancel-scope", "fail_after"]
)
async def test_a_cancelled_call_sends_cancel_and_its_late_answer_is_dropped(
    transport: Transport, scripted: Scripted, give_up: Callable[[Face, ScriptedPeer], Awaitable[None]]
) -> None:
    # The CANCEL crosses the answer: the peer answers the cancelled request anyway,
    # and that late answer must not reach the next call.
    peer = scripted(
        expect(FrameKind.REQUEST), expect(FrameKind.CANCEL, same_id=True), reply(FrameKind.RESPONSE, b"late"),
        expect(FrameKind.REQUEST), echo_back(), drain(),
    )
    client = await transport.connect(peer.address, timeout=5)
    try:
        await give_up(client, peer)
        assert await frame_arrives(peer, FrameKind.CANCEL)
        assert not client.closed
        assert await client.echo(b"second") == b"second"
    finally:
        await client.aclose()
    assert await peer_finishes(peer)
    assert peer.kinds == [FrameKind.HELLO, FrameKind.REQUEST, FrameKind.CANCEL, FrameKind.REQUEST,
                          FrameKind.CLOSE]
    first, cancel = peer.frames[1], peer.frames[2]
    assert cancel.id == first.id


@pytest.mark.async_only
async def test_random_cancellation_never_misroutes_an_answer(client: Face) -> None:
    """A few hundred calls, many given up at random moments (cancel scopes and
    ``fail_after``); every call that finished got its own answer."""
    rng = random.Random(1234)
    wrong: list[tuple[bytes, bytes]] = []
    finished = gave_up = 0

    async def one(i: int) -> None:
        nonlocal finished, gave_up
        payload = f"call {i} ".encode() * (i % 7 + 1)
        delay = rng.choice([0.0, 0.0, 0.001, 0.005])
        try:
            if i % 4 == 0:  # never given up: must finish
                answer = await client.echo(payload, delay=delay)
            elif i % 4 == 1:
                with anyio.fail_after(rng.random() * 0.02):
                    answer = await client.echo(payload, delay=delay)
            else:
                answer = b""
                with anyio.move_on_after(rng.random() * 0.02) as scope:
                    answer = await client.echo(payload, delay=delay)
                if scope.cancelled_caught:
                    gave_up += 1
                    return
        except TimeoutError:
            gave_up += 1
            return
        finished += 1
        if answer != payload:
            wrong.append((payload, answer))

    with anyio.fail_after(15):
        for round_ in range(3):
            async with anyio.create_task_group() as tg:
                for i in range(100):
                    tg.start_soon(one, round_ * 1000 + i)
    assert wrong == []
    assert finished + gave_up == 300
    assert finished >= 75 and gave_up > 0  # both paths were taken
    assert not client.closed
    for i in range(20):
        assert await client.echo(f"after {i}".encode()) == f"after {i}".encode()


async def test_leaving_a_stream_early_sends_cancel(transport: Transport, scripted: Scripted) -> None:
    """``break`` out of ``async for``/``for`` over ``words``: the stream is cancelled on the wire,
    its remaining items and final frame are dropped, and the client stays usable."""
    peer = scripted(
        expect(FrameKind.REQUEST), stream_items(3), expect(FrameKind.CANCEL, same_id=True),
        reply_error(ErrorCode.CANCELLED), expect(FrameKind.REQUEST), echo_back(), drain(),
    )
    client = await transport.connect(peer.address, timeout=5)
    try:
        assert await client.words(100, take=1) == [word_at(0)]
        assert await frame_arrives(peer, FrameKind.CANCEL)
        assert not client.closed
        assert await client.echo(b"after the stream") == b"after the stream"
    finally:
        await client.aclose()
    assert await peer_finishes(peer)
    assert peer.kinds == [FrameKind.HELLO, FrameKind.REQUEST, FrameKind.CANCEL, FrameKind.REQUEST,
                          FrameKind.CLOSE]


async def test_a_cancel_owed_by_a_call_given_up_unseen_goes_ahead_of_the_next_request(
    transport: Transport, scripted: Scripted
) -> None:
    """A call whose procedure the garbage collector closed, with no driver to perform what
    giving it up sends: the call table gives it up at the connection's next use, and the
    CANCEL it owes goes out ahead of the next request, on every transport (the table hands
    it over with that request's bytes; no driver has code of its own for it). Its waiting
    caller ends with CallCancelled; its late answer is dropped."""
    peer = scripted(
        expect(FrameKind.REQUEST), expect(FrameKind.CANCEL, same_id=True), reply(FrameKind.RESPONSE, b"late"),
        expect(FrameKind.REQUEST), echo_back(), drain(),
    )
    client = await transport.connect(peer.address, timeout=5, keepalive=None)
    ended: list[object] = []

    async def first() -> None:
        try:
            ended.append(await client.echo(b"first"))
        except CallCancelled as exc:
            ended.append(exc)

    try:
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(first)
                assert await frame_arrives(peer, FrameKind.REQUEST)
                table = call_table(client)
                [call] = [state for state in list(table.live.values()) if state.method == "echo"]
                table.collect(call)  # what closing its procedure half-way does
                assert await client.echo(b"second") == b"second"
        assert len(ended) == 1 and isinstance(ended[0], CallCancelled), ended
        assert not client.closed
    finally:
        await client.aclose()
    assert await peer_finishes(peer)
    assert peer.kinds == [FrameKind.HELLO, FrameKind.REQUEST, FrameKind.CANCEL, FrameKind.REQUEST,
                          FrameKind.CLOSE]


@pytest.mark.async_only
async def test_a_cancel_during_a_stalled_write_is_honoured_at_once_and_the_client_recovers(
    transport: Transport, server: ServerProcess
) -> None:
    """A request larger than the socket buffers, to a server that reads nothing, without a
    timeout: a cancel scope still ends the call within 0.1 s (the frame may be cut, and
    then its connection is torn down and the next call connects anew)."""
    with FaultProxy(server.address) as proxy:
        client = await transport.connect(proxy.address, timeout=None, retry=RetryPolicy())
        try:
            assert await client.echo(b"before") == b"before"
            proxy.set(Toxic("blackhole"))
            started = anyio.current_time()
            with anyio.move_on_after(0.3) as scope:
                await client.echo(bytes(BIG))
            took = anyio.current_time() - started
            assert scope.cancelled_caught
            assert took < 0.3 + 0.1 + TIMER_SLACK * 5, took
            proxy.clear()
            with anyio.fail_after(5):
                for n in range(3):
                    assert await client.echo(b"after %d" % n, timeout=5) == b"after %d" % n
        finally:
            with anyio.CancelScope(shield=True):
                await client.aclose()


@pytest.mark.async_only
async def test_a_call_coroutine_closed_half_way_is_given_up_with_a_cancel(
    transport: Transport, scripted: Scripted
) -> None:
    """A call's coroutine closed while its call waits (collected, with no task to resume):
    the call is given up and the server hears of it, as of any call given up, on every
    transport (the anyio one sends the CANCEL ahead of its next request or, here, its goodbye).
    Stepping a coroutine by hand is asyncio's only: trio's scheduler refuses it."""
    if transport.backend == "trio":
        pytest.skip("a trio coroutine cannot be stepped outside trio's scheduler")
    peer = scripted(drain())
    client = await transport.connect(peer.address, keepalive=None)
    face = client.client
    assert not isinstance(face, Client)
    call = face.echo(b"collected")
    call.send(None)
    assert await frame_arrives(peer, FrameKind.REQUEST)
    call.close()
    if transport.options is not None and transport.options.get("transport") == "anyio":
        await client.aclose()  # the anyio transport's CANCEL goes with its next write: this goodbye
    else:
        assert await frame_arrives(peer, FrameKind.CANCEL)
        await client.aclose()
    assert await peer_finishes(peer)
    assert peer.kinds == [FrameKind.HELLO, FrameKind.REQUEST, FrameKind.CANCEL, FrameKind.CLOSE]
