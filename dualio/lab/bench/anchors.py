"""What users reach for to call an async client from blocking code, measured beside the
portal transport: the native ``AsyncClient`` driven through anyio's ``BlockingPortal``
(``anyio.from_thread.start_blocking_portal``), or wrapped by Modal's synchronicity
(``Synchronizer.create_blocking``). Each runs every client of a lab run on one event-loop
thread of its own, as the portal transport runs every portal client of a process on one.

The clients offer the sync ``Client``'s unary methods that the lab's operations call
(``echo``, ``upper``, ``blob``), so the same operations drive all three.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any, Protocol

import anyio.from_thread

from dualio import AsyncClient

ANCHORS = ("anyio-portal", "synchronicity")


class AnchorClient(Protocol):
    def echo(self, data: bytes, *, delay: float = 0.0) -> bytes: ...

    def upper(self, text: str, *, delay: float = 0.0) -> str: ...

    def blob(self, size: int, *, seed: int = 0) -> bytes: ...

    def close(self) -> None: ...


class _Closing:
    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> _Closing:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class AnyioPortalClient(_Closing):
    """An ``AsyncClient`` made, called and closed through one ``BlockingPortal``."""

    def __init__(self, portal: anyio.from_thread.BlockingPortal, host: str, port: int,
                 timeout: float) -> None:
        self._portal = portal
        self._client = portal.call(_opened, host, port, timeout)

    def echo(self, data: bytes, *, delay: float = 0.0) -> bytes:
        return self._portal.call(functools.partial(self._client.echo, data, delay=delay))

    def upper(self, text: str, *, delay: float = 0.0) -> str:
        return self._portal.call(functools.partial(self._client.upper, text, delay=delay))

    def blob(self, size: int, *, seed: int = 0) -> bytes:
        return self._portal.call(functools.partial(self._client.blob, size, seed=seed))

    def close(self) -> None:
        self._portal.call(self._client.aclose)


async def _opened(host: str, port: int, timeout: float) -> AsyncClient:
    return await AsyncClient(host, port, timeout=timeout, connect_timeout=30).open()


class SynchronicityClient(_Closing):
    """An ``AsyncClient`` wrapped by synchronicity's blocking interface."""

    def __init__(self, blocking_client: Callable[..., Any], host: str, port: int, timeout: float) -> None:
        self._client = blocking_client(host, port, timeout=timeout, connect_timeout=30)
        self._client.open()
        self.echo: Callable[..., bytes] = self._client.echo
        self.upper: Callable[..., str] = self._client.upper
        self.blob: Callable[..., bytes] = self._client.blob

    def close(self) -> None:
        self._client.__exit__(None, None, None)


def _blocking_client_class() -> tuple[Any, Callable[..., Any]]:
    """A synchronizer (its own loop thread) and ``AsyncClient`` wrapped by it."""
    from synchronicity import Synchronizer

    synchronizer = Synchronizer()
    for base in reversed(AsyncClient.__mro__[1:-1]):  # synchronicity wraps each base under a name
        synchronizer.create_blocking(base, f"Blocking{base.__name__}", __name__)
    return synchronizer, synchronizer.create_blocking(AsyncClient, "BlockingAsyncClient", __name__)


Opener = Callable[[str, int, float], AnchorClient]


@contextlib.contextmanager
def hosting(anchor: str) -> Iterator[Opener]:
    """The anchor's loop thread for one run, and what opens a client on it; the thread
    ends when the run does."""
    if anchor == "anyio-portal":
        with anyio.from_thread.start_blocking_portal() as portal:
            yield functools.partial(AnyioPortalClient, portal)
        return
    if anchor == "synchronicity":
        synchronizer, blocking_client = _blocking_client_class()
        try:
            yield functools.partial(SynchronicityClient, blocking_client)
        finally:
            synchronizer._close_loop()
        return
    raise ValueError(f"anchor must be one of {ANCHORS}, not {anchor!r}")
