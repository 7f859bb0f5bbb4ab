"""The service methods of the async face, one line each over the transport.

This file is the source of ``dualio_sync/service_methods.py``, which
``tests/unasync.py`` generates from it (``async``/``await`` removed, async types
replaced by their blocking twins). Edit this file, then run
``python tests/unasync.py``; the test command fails when the two drift apart.
A new service method is its encoding in ``transports/wire/methods.py`` plus one
method here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TypeVar

from transports.interface import AsyncTransport
from transports.wire import methods
from transports.wire.methods import ServerStats
from transports.wire.timeouts import UNSET, Unset, pick_timeout

T = TypeVar("T")


class AsyncServiceMethods:
    """Every service method; the face supplies the open transport and the default timeout."""

    timeout: float | None

    def _live_transport(self) -> AsyncTransport:
        raise NotImplementedError

    async def echo(self, data: bytes, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> bytes:
        """``data`` back, after ``delay`` seconds on the server."""
        return await self._call(methods.echo(data, delay), timeout)

    async def upper(self, text: str, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> str:
        """``text`` upper-cased by the server, after ``delay`` seconds."""
        return await self._call(methods.upper(text, delay), timeout)

    async def sleep(self, seconds: float, *, timeout: float | Unset | None = UNSET) -> None:
        """Return after the server has waited ``seconds``."""
        return await self._call(methods.sleep(seconds), timeout)

    async def blob(
        self, size: int, *, seed: int = 0, verify: bool = True,
        timeout: float | Unset | None = UNSET,
    ) -> bytes:
        """``size`` bytes derived from ``seed``, checked on arrival when ``verify``."""
        return await self._call(methods.blob(size, seed, verify), timeout)

    def words(
        self, count: int, wait: float = 0.0, *, timeout: float | Unset | None = UNSET
    ) -> AsyncIterator[str]:
        """A stream of ``count`` words, one every ``wait`` seconds; ``timeout`` bounds the
        wait for each word. Leaving the loop early cancels the stream on the server."""
        op = methods.words(count, wait)
        return self._live_transport().stream(op, pick_timeout(timeout, self.timeout))

    async def stats(self, *, timeout: float | Unset | None = UNSET) -> ServerStats:
        """The server's counters."""
        return await self._call(methods.stats(), timeout)

    async def ping(self, *, timeout: float | Unset | None = UNSET) -> float:
        """Round-trip time to the server, in seconds."""
        return await self._live_transport().ping(pick_timeout(timeout, self.timeout))

    async def call(
        self, method: str, payload: bytes = b"", *, timeout: float | Unset | None = UNSET
    ) -> bytes:
        """Call any method with raw argument bytes; returns the raw answer."""
        return await self._call(methods.raw(method, payload), timeout)

    async def _call(self, op: methods.Call[T], timeout: float | Unset | None) -> T:
        return await self._live_transport().call(op, pick_timeout(timeout, self.timeout))
