"""The same fault gives the same error on every transport.

Each case below makes one fault happen to a fresh client of every configuration in
turn (``faces.TRANSPORTS``, each on its own event loop) and compares what its call
raised: the exception's type and text, the method it names, and whether its request
left (``request_id``). Where a transport differs by design, the difference is in
``DIFFERENCES`` with its reason (docs/architecture.md lists them); such an entry is
checked too, so it must go once the difference does.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from dualio import DualioError
from dualio_transports.dualio_protocol.frames import FrameKind
from dualio_transports.wire.errors import causes
from tests.conftest import ServerProcess
from tests.contract.faces import TRANSPORTS, UVLOOP, Transport
from tests.scripted_peer import ScriptedPeer, drain, expect, hang_up, reset, stall

pytestmark = pytest.mark.timeout(120)

BIG = 15 << 20  # a request larger than the socket buffers hold
Observed = tuple[str, ...]


def observed(error: BaseException | None) -> Observed:
    """What a caller sees of ``error``: its type, its text, its call and whether it left."""
    if error is None:
        return ("no error",)
    if not isinstance(error, DualioError):
        return (type(error).__name__, str(error))
    left = "never sent" if error.request_id is None else "sent"
    return (type(error).__name__, str(error), str(error.method), left)


def socket_error(error: BaseException | None) -> str:
    """The first ``OSError`` in ``error``'s chain of causes that is not a dualio error (a
    ``ConnectError`` is a ``ConnectionError`` too), by type: what broke the socket."""
    for link in causes(error):
        if isinstance(link, OSError) and not isinstance(link, DualioError):
            return type(link).__name__
    return "no OSError among the causes"


async def raised(call: Callable[[], Awaitable[object]]) -> BaseException | None:
    try:
        await call()
    except Exception as exc:
        return exc
    return None


# -- the faults ---------------------------------------------------------------------------------

async def call_timeout(transport: Transport, server: ServerProcess) -> Observed:
    client = await transport.connect(server.address)
    try:
        return observed(await raised(lambda: client.echo(b"x", delay=2.0, timeout=0.2)))
    finally:
        await client.aclose()


async def item_timeout(transport: Transport, server: ServerProcess) -> Observed:
    client = await transport.connect(server.address)
    try:
        return observed(await raised(lambda: client.words(3, 2.0, timeout=0.2)))
    finally:
        await client.aclose()


async def write_timeout_before_any_byte_left(transport: Transport, server: ServerProcess) -> Observed:
    """A request that cannot begin to leave: the socket is full of another call's request,
    which a server that reads nothing never takes."""
    with ScriptedPeer(stall()) as peer:
        client = await transport.connect(peer.address, keepalive=None)
        try:
            first: list[BaseException | None] = []

            async def fill() -> None:
                first.append(await raised(lambda: client.echo(bytes(BIG), timeout=1.0)))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(fill)
                await anyio.sleep(0.3)  # the big request fills the socket
                second = await raised(lambda: client.echo(b"y", timeout=0.3))
            return observed(second)
        finally:
            await client.aclose()


async def torn_write(transport: Transport, server: ServerProcess) -> Observed:
    """A request's deadline passes while it is being written (part of it has left)."""
    with ScriptedPeer(stall()) as peer:
        client = await transport.connect(peer.address, keepalive=None)
        try:
            return observed(await raised(lambda: client.echo(bytes(BIG), timeout=0.3)))
        finally:
            await client.aclose()


async def server_gone_mid_call(transport: Transport, server: ServerProcess) -> Observed:
    with ScriptedPeer(expect(FrameKind.REQUEST), hang_up()) as peer:
        client = await transport.connect(peer.address, keepalive=None)
        try:
            return observed(await raised(lambda: client.echo(b"x", timeout=5.0)))
        finally:
            await client.aclose()


async def server_reset_mid_call(transport: Transport, server: ServerProcess) -> Observed:
    """The server aborts the connection (RST) while a call waits: the error's chain of
    causes holds the socket's own error, on a transport that stores it for later too."""
    with ScriptedPeer(expect(FrameKind.REQUEST), reset()) as peer:
        client = await transport.connect(peer.address, keepalive=None)
        try:
            error = await raised(lambda: client.echo(b"x", timeout=5.0))
            return (*observed(error), socket_error(error))
        finally:
            await client.aclose()


async def server_reset_during_the_handshake(transport: Transport, server: ServerProcess) -> Observed:
    with ScriptedPeer(expect(FrameKind.HELLO), reset(), handshake=False) as peer:
        error = await raised(lambda: transport.connect(peer.address, connect_timeout=5.0))
        return (*observed(error), socket_error(error))


async def _cancelled(transport: Transport, after: float | None) -> Observed:
    """A call whose caller's cancel scope is cancelled before it starts (``after`` None), or
    ``after`` seconds into its wait: the caller sees its loop's own cancel, and the hooks a
    CallCancelled. (What reaches the server differs: the asyncio fast path writes a request
    before its first await, so a cancel made before the call is met after its request left.)"""
    heard: list[BaseException | None] = []
    with ScriptedPeer(drain()) as peer:
        client = await transport.connect(
            peer.address, keepalive=None, on_response=lambda finished: heard.append(finished.error),
        )
        try:
            with anyio.CancelScope() as scope:
                if after is None:
                    scope.cancel()
                else:
                    scope.deadline = anyio.current_time() + after
                await client.echo(b"x", delay=0.0, timeout=5.0)
            outcome = "cancelled" if scope.cancelled_caught else "answered"
        finally:
            await client.aclose()
        assert peer.wait_finished()
    hooks = [type(error).__name__ for error in heard]
    return (outcome, *hooks)


async def cancel_before_the_request_left(transport: Transport, server: ServerProcess) -> Observed:
    return await _cancelled(transport, None)


async def cancel_after_the_request_left(transport: Transport, server: ServerProcess) -> Observed:
    return await _cancelled(transport, 0.2)


async def connect_timeout(transport: Transport, server: ServerProcess) -> Observed:
    with ScriptedPeer(stall(), handshake=False) as peer:
        return observed(await raised(lambda: transport.connect(peer.address, connect_timeout=0.3)))


async def closed_client(transport: Transport, server: ServerProcess) -> Observed:
    client = await transport.connect(server.address)
    await client.aclose()
    return observed(await raised(lambda: client.echo(b"x")))


Case = Callable[[Transport, ServerProcess], Awaitable[Observed]]
CASES: dict[str, Case] = {case.__name__: case for case in (
    call_timeout, item_timeout, write_timeout_before_any_byte_left, torn_write, server_gone_mid_call,
    server_reset_mid_call, server_reset_during_the_handshake,
    cancel_before_the_request_left, cancel_after_the_request_left, connect_timeout, closed_client,
)}
ASYNC_ONLY = {"cancel_before_the_request_left", "cancel_after_the_request_left"}  # a task's cancel

_BUFFERED = ("portal", "native-asyncio", "native-uvloop")
DIFFERENCES: dict[tuple[str, str], tuple[Observed, str]] = {
    **{("torn_write", t): (
        ("DualioTimeout", "the call timed out", "echo", "sent"),
        "asyncio's write buffer takes a frame whole and never cuts it: the request is on its "
        "way when the deadline passes, so the call times out as one whose request left, and "
        "the connection is kept (the others fail it: part of a frame left)",
    ) for t in _BUFFERED},
}


def _run(transport: Transport, case: Case, server: ServerProcess) -> Observed:
    backend, options = (transport.backend, {}) if isinstance(transport.backend, str) else transport.backend
    result: Observed = anyio.run(case, transport, server, backend=backend, backend_options=options)
    return result


@pytest.mark.parametrize("name", list(CASES))
def test_the_same_fault_gives_the_same_error_on_every_transport(name: str, server: ServerProcess) -> None:
    chosen = [t for t in TRANSPORTS if not (name in ASYNC_ONLY and t.is_sync)]
    if importlib.util.find_spec("uvloop") is None:
        chosen = [t for t in chosen if t.backend != UVLOOP]
    seen = {t.id: _run(t, CASES[name], server) for t in chosen}
    reference = seen[chosen[0].id]
    assert reference[0] != "no error" and reference[0] != "answered", reference
    unlike: dict[str, Any] = {}
    for transport_id, got in seen.items():
        expected, _ = DIFFERENCES.get((name, transport_id), (reference, ""))
        if got != expected:
            unlike[transport_id] = got
    assert not unlike, f"{chosen[0].id}: {reference}; differing: {unlike}"


def test_every_stated_difference_names_a_case_and_a_transport() -> None:
    ids = {t.id for t in TRANSPORTS}
    for case, transport_id in DIFFERENCES:
        assert case in CASES and transport_id in ids

