"""The contract, on every transport: a server that breaks the protocol after the handshake
(see test_calls.py for how the cases run on every transport).

Each break is fatal to the connection (docs/protocol.md, section 5.1): the
pending call fails promptly with the :class:`ProtocolError` subclass given, the
client is closed, later calls raise ClosedError, and the client hangs up.
"""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Callable

import pytest

from dualio import ClosedError, FrameTooLarge, ProtocolError
from dualio_transports.dualio_protocol.frames import FrameKind
from tests.contract.faces import Face, Transport
from tests.contract.helpers import PROMPT, peer_finishes, timed
from tests.scripted_peer import (
    ScriptedPeer,
    Step,
    drain,
    expect,
    reply,
    reply_kind_number,
    send_raw,
    welcome,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(20)]

Scripted = Callable[..., ScriptedPeer]

BROKEN: dict[str, tuple[Step, type[ProtocolError]]] = {
    "unknown-kind": (reply_kind_number(99), ProtocolError),
    "oversized-length": (send_raw(struct.pack(">IBI", 0xFFFFFFFF, FrameKind.RESPONSE, 1)), FrameTooLarge),
    "response-for-unknown-id": (reply(FrameKind.RESPONSE, b"not yours", id_offset=1000), ProtocolError),
    "length-shorter-than-header": (send_raw(b"\x00\x00\x00\x02ab"), ProtocolError),
    "client-only-kind": (reply(FrameKind.REQUEST, b"\x04echo"), ProtocolError),
    "second-welcome": (welcome(), ProtocolError),
}


async def check_the_break(
    client: Face, peer: ScriptedPeer, call: Callable[[], Awaitable[object]], expected: type[ProtocolError]
) -> ProtocolError:
    try:
        error, took = await timed(call)
        assert isinstance(error, expected), repr(error)
        assert took < PROMPT
        assert client.closed
        after, took = await timed(lambda: client.echo(b"after"))
        assert isinstance(after, ClosedError), repr(after)
        assert took < PROMPT
    finally:
        await client.aclose()
    assert await peer_finishes(peer)  # the client hung up on the bad peer
    return error


@pytest.mark.parametrize(("breaks", "expected"), BROKEN.values(), ids=BROKEN.keys())
async def test_a_protocol_violation_fails_the_pending_call_and_closes_the_client(
    transport: Transport, scripted: Scripted, breaks: Step, expected: type[ProtocolError]
) -> None:
    peer = scripted(expect(FrameKind.REQUEST), breaks, drain())
    client = await transport.connect(peer.address, timeout=5)
    await check_the_break(client, peer, lambda: client.echo(b"pending"), expected)


# A frame of the wrong kind for its call (docs/protocol.md, section 2: every request
# ends with its own kind of final frame) is a ProtocolError naming that kind, never a
# silent result.
CALLS: dict[str, tuple[FrameKind, Callable[[Face], Awaitable[object]]]] = {
    "echo": (FrameKind.REQUEST, lambda client: client.echo(b"pending")),
    "ping": (FrameKind.PING, lambda client: client.ping()),
    "words": (FrameKind.REQUEST, lambda client: client.words(3)),
}

WRONG_KIND: dict[str, tuple[str, tuple[Step, ...], str]] = {
    "echo-answered-with-PONG": ("echo", (reply(FrameKind.PONG),), "PONG"),
    "echo-answered-with-STREAM_END": ("echo", (reply(FrameKind.STREAM_END),), "STREAM_END"),
    "echo-answered-with-STREAM_ITEM": (
        "echo", (reply(FrameKind.STREAM_ITEM, b"item"), reply(FrameKind.RESPONSE, b"pending")), "STREAM_ITEM",
    ),
    "ping-answered-with-RESPONSE": ("ping", (reply(FrameKind.RESPONSE),), "RESPONSE"),
    "words-answered-with-RESPONSE": ("words", (reply(FrameKind.RESPONSE, b"alpha"),), "RESPONSE"),
    "words-answered-with-PONG": ("words", (reply(FrameKind.PONG),), "PONG"),
}


@pytest.mark.parametrize(("method", "answers", "kind_name"), WRONG_KIND.values(), ids=WRONG_KIND.keys())
async def test_a_frame_of_the_wrong_kind_for_its_call_is_a_protocol_error(
    transport: Transport, scripted: Scripted, method: str, answers: tuple[Step, ...], kind_name: str
) -> None:
    request_kind, call = CALLS[method]
    peer = scripted(expect(request_kind), *answers, drain())
    client = await transport.connect(peer.address, timeout=5)
    error = await check_the_break(client, peer, lambda: call(client), ProtocolError)
    assert kind_name in str(error), str(error)
