"""The service methods of the blocking face.

GENERATED from dualio/service_methods.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

from collections.abc import Iterator

from dualio_sync.toolkit import UNSET, Face, Unset
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.methods import ServerStats


class ServiceMethods(Face):
    """Every service method of dualio's protocol v1."""

    def echo(self, data: bytes, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> bytes:
        """``data`` back, after ``delay`` seconds on the server."""
        return self.request(methods.echo(data, delay), timeout)

    def upper(self, text: str, *, delay: float = 0.0, timeout: float | Unset | None = UNSET) -> str:
        """``text`` upper-cased by the server, after ``delay`` seconds."""
        return self.request(methods.upper(text, delay), timeout)

    def sleep(self, seconds: float, *, timeout: float | Unset | None = UNSET) -> None:
        """Return after the server has waited ``seconds``."""
        return self.request(methods.sleep(seconds), timeout)

    def blob(
        self, size: int, *, seed: int = 0, verify: bool = True,
        timeout: float | Unset | None = UNSET,
    ) -> bytes:
        """``size`` bytes derived from ``seed``, checked on arrival when ``verify``."""
        return self.request(methods.blob(size, seed, verify), timeout)

    def words(
        self, count: int, wait: float = 0.0, *, timeout: float | Unset | None = UNSET
    ) -> Iterator[str]:
        """A stream of ``count`` words, one every ``wait`` seconds; ``timeout`` bounds the
        wait for each word. Leaving the loop early cancels the stream on the server.
        A stream is not resumed after a lost connection: it raises StreamInterrupted."""
        return self.stream(methods.words(count, wait), timeout)

    def stats(self, *, timeout: float | Unset | None = UNSET) -> ServerStats:
        """The server's counters."""
        return self.request(methods.stats(), timeout)

    def call(
        self, method: str, payload: bytes = b"", *, timeout: float | Unset | None = UNSET
    ) -> bytes:
        """Call any method with raw argument bytes; returns the raw answer. Not retried
        after a lost connection (its effects are unknown)."""
        return self.request(methods.raw(method, payload), timeout)
