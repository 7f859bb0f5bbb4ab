"""The contract, on every transport: an error names the call that raised it (its method
and its request's wire id), and so does the ``on_response`` hook.

One error can end many calls (a lost connection fails every call in flight), so
what each caller gets is its own copy; the shared one is never changed.
"""

from __future__ import annotations

import anyio
import pytest

from dualio import CallFinished, ClosedError, ConnectionLost, DualioError, DualioTimeout, RemoteError
from dualio_transports.dualio_protocol.frames import FrameKind
from tests.conftest import ServerProcess
from tests.contract.faces import Transport
from tests.contract.helpers import timed
from tests.scripted_peer import ScriptedPeer, expect, hang_up

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(20)]


def _names(error: DualioError, method: str) -> int:
    """The request id ``error`` names, after checking it names ``method``."""
    assert error.method == method, repr(error)
    assert isinstance(error.request_id, int) and error.request_id > 0, error.request_id
    assert f"call: {method}, request id {error.request_id}" in getattr(error, "__notes__", ()), error
    return error.request_id


async def test_a_timeout_and_a_server_error_name_their_call(
    transport: Transport, server: ServerProcess
) -> None:
    finished: list[CallFinished] = []
    client = await transport.connect(server.address, on_response=finished.append)
    try:
        timeout, _ = await timed(lambda: client.echo(b"late", delay=0.5, timeout=0.05))
        assert isinstance(timeout, DualioTimeout)
        late = _names(timeout, "echo")
        refused, _ = await timed(lambda: client.call("no_such_method"))
        assert isinstance(refused, RemoteError)
        unknown = _names(refused, "no_such_method")
        assert unknown != late
        assert await client.upper("fine") == "FINE"
    finally:
        await client.aclose()
    assert [(f.method, f.request_id, f.error) for f in finished[:2]] == [
        ("echo", late, timeout), ("no_such_method", unknown, refused)
    ]
    answered = finished[2]
    assert answered.method == "upper" and answered.error is None
    assert answered.request_id not in (None, late, unknown)


async def test_a_call_on_a_closed_client_names_its_method_and_no_request(
    transport: Transport, server: ServerProcess
) -> None:
    client = await transport.connect(server.address)
    await client.aclose()
    error, _ = await timed(lambda: client.stats())
    assert isinstance(error, ClosedError)
    assert (error.method, error.request_id) == ("stats", None)
    assert "call: stats, never sent" in error.__notes__


async def test_a_lost_connection_names_each_call_it_ended(transport: Transport) -> None:
    """Three calls in flight when the server closes the connection: three errors, each
    naming its own method and id, none the same object; the connection's own failure
    is left as it was."""
    methods = ("echo", "upper", "sleep")
    peer = ScriptedPeer(*(expect(FrameKind.REQUEST) for _ in methods), hang_up())
    client = await transport.connect(peer.address)
    errors: dict[str, BaseException | None] = {}

    async def one(method: str) -> None:
        call = {"echo": lambda: client.echo(b"x"), "upper": lambda: client.upper("x"),
                "sleep": lambda: client.sleep(0)}[method]
        errors[method], _ = await timed(call)

    try:
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                for method in methods:
                    tg.start_soon(one, method)
                    await anyio.sleep(0.05)  # in this order on the wire
    finally:
        await client.aclose()
        peer.close()
    ids = []
    for method in methods:
        error = errors[method]
        assert isinstance(error, ConnectionLost), repr(error)
        ids.append(_names(error, method))
    assert len(set(ids)) == len(methods)
    assert len({id(e) for e in errors.values()}) == len(methods)
