"""Every transport under one interface: the "client under test" the contract cases drive.

A :class:`Face` has the service methods of both faces as coroutines. The async
face forwards to an ``AsyncClient``; the blocking face runs each blocking call of
a ``dualio_sync.Client`` in a worker thread (``anyio.to_thread.run_sync``), so
the blocking client's own timeouts, errors and thread-safety are what the case
sees, and concurrent calls from several tasks are concurrent calls from several
threads.
"""

from __future__ import annotations

import functools
import importlib.util
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio.to_thread
import pytest

from dualio import AsyncClient, ServerStats
from dualio_sync import Client
from dualio_transports.policy.timeouts import UNSET, Unset

T = TypeVar("T")
Timeout = float | Unset | None
Backend = str | tuple[str, dict[str, Any]]


class Face(ABC):
    """One open client, whatever its face and transport."""

    client: Client | AsyncClient  # the client under test, for its settings and state

    @property
    @abstractmethod
    def closed(self) -> bool: ...

    @property
    @abstractmethod
    def dropped(self) -> int:
        """Frames that arrived for calls whose callers had given up (read from the transport)."""

    @abstractmethod
    async def echo(self, data: bytes, *, delay: float = 0.0, timeout: Timeout = UNSET) -> bytes: ...

    @abstractmethod
    async def upper(self, text: str, *, delay: float = 0.0, timeout: Timeout = UNSET) -> str: ...

    @abstractmethod
    async def sleep(self, seconds: float, *, timeout: Timeout = UNSET) -> None: ...

    @abstractmethod
    async def blob(
        self, size: int, *, seed: int = 0, verify: bool = True, timeout: Timeout = UNSET
    ) -> bytes: ...

    @abstractmethod
    async def words(
        self, count: int, wait: float = 0.0, *, timeout: Timeout = UNSET, take: int | None = None,
        into: list[str] | None = None, echo_every: int | None = None,
    ) -> list[str]:
        """The stream's words. With ``take``, leave the loop (``break``) after that many.
        Each word is also appended to ``into`` as it arrives. With ``echo_every``, an
        ``echo`` is made (and its answer checked) inside the loop after every that many
        words."""

    @abstractmethod
    async def stats(self, *, timeout: Timeout = UNSET) -> ServerStats: ...

    @abstractmethod
    async def ping(self, *, timeout: Timeout = UNSET) -> float: ...

    @abstractmethod
    async def call(self, method: str, payload: bytes = b"", *, timeout: Timeout = UNSET) -> bytes: ...

    @abstractmethod
    async def aclose(self) -> None: ...


def _echo_payload(n: int) -> bytes:
    return f"between-{n}".encode()


def _check_echo(n: int, got: bytes) -> None:
    if got != _echo_payload(n):
        raise AssertionError(f"an echo made after word {n} was answered with {got!r}")


class AsyncFace(Face):
    def __init__(self, client: AsyncClient) -> None:
        self.client = client

    @property
    def closed(self) -> bool:
        return self.client.closed

    @property
    def dropped(self) -> int:
        assert self.client._conn is not None
        return self.client._conn.dropped

    async def echo(self, data: bytes, *, delay: float = 0.0, timeout: Timeout = UNSET) -> bytes:
        return await self.client.echo(data, delay=delay, timeout=timeout)

    async def upper(self, text: str, *, delay: float = 0.0, timeout: Timeout = UNSET) -> str:
        return await self.client.upper(text, delay=delay, timeout=timeout)

    async def sleep(self, seconds: float, *, timeout: Timeout = UNSET) -> None:
        await self.client.sleep(seconds, timeout=timeout)

    async def blob(self, size: int, *, seed: int = 0, verify: bool = True, timeout: Timeout = UNSET) -> bytes:
        return await self.client.blob(size, seed=seed, verify=verify, timeout=timeout)

    async def words(
        self, count: int, wait: float = 0.0, *, timeout: Timeout = UNSET, take: int | None = None,
        into: list[str] | None = None, echo_every: int | None = None,
    ) -> list[str]:
        got: list[str] = [] if into is None else into
        async for word in self.client.words(count, wait, timeout=timeout):
            got.append(word)
            if echo_every is not None and len(got) % echo_every == 0:
                _check_echo(len(got), await self.client.echo(_echo_payload(len(got)), timeout=timeout))
            if take is not None and len(got) >= take:
                break  # what users write; the generator is finalised by the loop's hooks
        return got

    async def stats(self, *, timeout: Timeout = UNSET) -> ServerStats:
        return await self.client.stats(timeout=timeout)

    async def ping(self, *, timeout: Timeout = UNSET) -> float:
        return await self.client.ping(timeout=timeout)

    async def call(self, method: str, payload: bytes = b"", *, timeout: Timeout = UNSET) -> bytes:
        return await self.client.call(method, payload, timeout=timeout)

    async def aclose(self) -> None:
        await self.client.aclose()


class SyncFace(Face):
    """The blocking client; every call runs in a worker thread of its own."""

    def __init__(self, client: Client) -> None:
        self.client = client

    @staticmethod
    async def _run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

    @property
    def closed(self) -> bool:
        return self.client.closed

    @property
    def dropped(self) -> int:
        assert self.client._conn is not None
        return self.client._conn.dropped

    async def echo(self, data: bytes, *, delay: float = 0.0, timeout: Timeout = UNSET) -> bytes:
        return await self._run(self.client.echo, data, delay=delay, timeout=timeout)

    async def upper(self, text: str, *, delay: float = 0.0, timeout: Timeout = UNSET) -> str:
        return await self._run(self.client.upper, text, delay=delay, timeout=timeout)

    async def sleep(self, seconds: float, *, timeout: Timeout = UNSET) -> None:
        await self._run(self.client.sleep, seconds, timeout=timeout)

    async def blob(self, size: int, *, seed: int = 0, verify: bool = True, timeout: Timeout = UNSET) -> bytes:
        return await self._run(self.client.blob, size, seed=seed, verify=verify, timeout=timeout)

    async def words(
        self, count: int, wait: float = 0.0, *, timeout: Timeout = UNSET, take: int | None = None,
        into: list[str] | None = None, echo_every: int | None = None,
    ) -> list[str]:
        got: list[str] = [] if into is None else into

        def iterate() -> list[str]:
            for word in self.client.words(count, wait, timeout=timeout):
                got.append(word)
                if echo_every is not None and len(got) % echo_every == 0:
                    _check_echo(len(got), self.client.echo(_echo_payload(len(got)), timeout=timeout))
                if take is not None and len(got) >= take:
                    break  # the generator is dropped here, which closes it
            return got

        return await self._run(iterate)

    async def stats(self, *, timeout: Timeout = UNSET) -> ServerStats:
        return await self._run(self.client.stats, timeout=timeout)

    async def ping(self, *, timeout: Timeout = UNSET) -> float:
        return await self._run(self.client.ping, timeout=timeout)

    async def call(self, method: str, payload: bytes = b"", *, timeout: Timeout = UNSET) -> bytes:
        return await self._run(self.client.call, method, payload, timeout=timeout)

    async def aclose(self) -> None:
        await self._run(self.client.close)


@dataclass(frozen=True)
class Transport:
    """One way to be a dualio client: a face, its options, and the loop the case runs on."""

    id: str
    backend: Backend
    options: dict[str, Any] | None = field(default=None)  # None: the blocking Client
    sync_transport: str = "blocking"  # the blocking Client's transport=

    @property
    def is_sync(self) -> bool:
        return self.options is None

    async def connect(
        self, address: tuple[str, int], *, timeout: float | None = 5.0, connect_timeout: float | None = 5.0,
        **options: Any,
    ) -> Face:
        """An open client of ``address`` (short default timeouts: no case waits long by mistake).
        Without ``retry=``, a client that neither reconnects nor retries: most cases state
        what one connection does; tests/contract/test_resilience.py states what retry adds."""
        host, port = address
        options.setdefault("retry", None)
        if self.options is None:
            client = await anyio.to_thread.run_sync(
                functools.partial(
                    Client, host, port, timeout=timeout, connect_timeout=connect_timeout,
                    transport=self.sync_transport, **options,
                )
            )
            return SyncFace(client)
        async_client = AsyncClient(
            host, port, timeout=timeout, connect_timeout=connect_timeout, **self.options, **options
        )
        await async_client.open()
        return AsyncFace(async_client)

    async def from_url(self, url: str, **options: Any) -> Face:
        """An open client made by ``from_url`` (keyword arguments override the URL)."""
        if self.options is None:
            client = await anyio.to_thread.run_sync(
                functools.partial(Client.from_url, url, transport=self.sync_transport, **options)
            )
            return SyncFace(client)
        async_client = AsyncClient.from_url(url, **self.options, **options)
        await async_client.open()
        return AsyncFace(async_client)


UVLOOP: Backend = ("asyncio", {"use_uvloop": True})

TRANSPORTS: tuple[Transport, ...] = (
    Transport("sync", "asyncio"),
    Transport("portal", "asyncio", sync_transport="portal"),
    Transport("native-asyncio", "asyncio", {"transport": "native"}),
    Transport("anyio-asyncio", "asyncio", {"transport": "anyio"}),
    Transport("native-trio", "trio", {"transport": "native"}),
    Transport("native-uvloop", UVLOOP, {"transport": "native"}),
    Transport("pool-asyncio", "asyncio", {"transport": "emulated", "emulation": "pool"}),
    Transport("thread-asyncio", "asyncio", {"transport": "emulated", "emulation": "thread"}),
    Transport("callback-asyncio", "asyncio", {"transport": "emulated", "emulation": "callback"}),
    Transport("pool-trio", "trio", {"transport": "emulated", "emulation": "pool"}),
    Transport("thread-trio", "trio", {"transport": "emulated", "emulation": "thread"}),
    Transport("callback-trio", "trio", {"transport": "emulated", "emulation": "callback"}),
)


def parametrize_transports(metafunc: pytest.Metafunc, *, async_only: bool = False) -> None:
    """Run a case that takes the ``transport`` fixture once per transport (the async ones
    only, with ``async_only``), uvloop's skipped with the reason where it is not installed."""
    if "transport" not in metafunc.fixturenames:
        return
    chosen = [t for t in TRANSPORTS if not (async_only and t.is_sync)]
    no_uvloop = pytest.mark.skipif(
        importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed"
    )
    metafunc.parametrize("transport", [
        pytest.param(t, id=t.id, marks=[no_uvloop] if t.backend == UVLOOP else []) for t in chosen
    ])
