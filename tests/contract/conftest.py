"""Fixtures of the contract suite: every case runs once per transport (see ``faces.TRANSPORTS``).

A case takes the ``transport`` fixture (or ``client``, a client of the shared real
server). ``pytest_generate_tests`` parametrises it over every transport, or over
the async ones only for a case marked ``async_only``; the ``anyio_backend`` the
case runs on follows from the transport, so one case function is the one source
of truth for all of them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from tests.conftest import ServerProcess
from tests.contract.faces import Backend, Face, Transport, parametrize_transports
from tests.scripted_peer import ScriptedPeer, Step


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "async_only: a contract case that only the async face can state (task cancellation)"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    async_only = metafunc.definition.get_closest_marker("async_only") is not None
    parametrize_transports(metafunc, async_only=async_only)


@pytest.fixture
def anyio_backend(transport: Transport) -> Backend:
    return transport.backend


@pytest.fixture
async def client(server: ServerProcess, transport: Transport) -> AsyncIterator[Face]:
    """A client of the shared real server, closed after the case."""
    face = await transport.connect(server.address, timeout=10, connect_timeout=10)
    try:
        yield face
    finally:
        await face.aclose()


@pytest.fixture
def scripted() -> Iterator[Callable[..., ScriptedPeer]]:
    """Make scripted peers; each is stopped after the case, and what went wrong in it fails the case."""
    peers: list[ScriptedPeer] = []

    def make(*steps: Step, handshake: bool = True) -> ScriptedPeer:
        peer = ScriptedPeer(*steps, handshake=handshake)
        peers.append(peer)
        return peer

    yield make
    failures: list[BaseException] = []
    for peer in peers:
        try:
            peer.close()
        except BaseException as exc:
            failures.append(exc)
    if failures:
        raise failures[0]
