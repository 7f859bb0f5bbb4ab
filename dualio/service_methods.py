"""The service methods of the async face: dualio's protocol v1, one line each, over the
calls every face makes (:mod:`dualio.face_calls`).

This file is the source of ``dualio_sync/service_methods.py``, which
``dualio/devtools/unasync.py`` generates from it (``async``/``await`` removed, async types
replaced by their blocking twins). Edit this file, then run
``python -m dualio.devtools.unasync``; the test command fails when the two drift apart.
A new service method is its encoding in ``transports/dualio_protocol/methods.py`` plus one
method here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from dualio.toolkit import UNSET, AsyncFace, Unset
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.methods import ServerStats


class AsyncServiceMethods(AsyncFace):
    """Every service method of dualio's protocol v1."""

    async def echo(self, data: bytes, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> bytes:
        """``data`` back, after ``delay`` seconds on the server."""
        return await self.request(methods.echo(data, delay), timeout)

    async def upper(self, text: str, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> str:
        """``text`` upper-cased by the server, after ``delay`` seconds."""
        return await self.request(methods.upper(text, delay), timeout)

    async def sleep(self, seconds: float, *, timeout: float | Unset | None = UNSET) -> None:
        """Return after the server has waited ``seconds``."""
        return await self.request(methods.sleep(seconds), timeout)

    async def blob(
        self, size: int, *, seed: int = 0, verify: bool = True,
        timeout: float | Unset | None = UNSET,
    ) -> bytes:
        """``size`` bytes derived from ``seed``, checked on arrival when ``verify``."""
        return await self.request(methods.blob(size, seed, verify), timeout)

    def words(
        self, count: int, wait: float = 0.0, *, timeout: float | Unset | None = UNSET
    ) -> AsyncIterator[str]:
        """A stream of ``count`` words, one every ``wait`` seconds; ``timeout`` bounds the
        wait for each word. Leaving the loop early cancels the stream on the server.
        A stream is not resumed after a lost connection: it raises StreamInterrupted."""
        return self.stream(methods.words(count, wait), timeout)

    async def stats(self, *, timeout: float | Unset | None = UNSET) -> ServerStats:
        """The server's counters."""
        return await self.request(methods.stats(), timeout)

    async def call(
        self, method: str, payload: bytes = b"", *, timeout: float | Unset | None = UNSET
    ) -> bytes:
        """Call any method with raw argument bytes; returns the raw answer. Not retried
        after a lost connection (its effects are unknown)."""
        return await self.request(methods.raw(method, payload), timeout)
