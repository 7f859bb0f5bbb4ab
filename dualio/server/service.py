"""What each method does, independent of the server model that runs it.

``plan`` turns a parsed request into a :class:`Reply` (bytes after a delay) or a
:class:`WordStream`; the asyncio and threaded servers only differ in how they wait.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.blob import blob_bytes
from dualio_transports.dualio_protocol.frames import max_payload_size


class UnknownMethod(LookupError):
    pass


@dataclass(slots=True)
class Reply:
    """Bytes to answer with, after ``delay`` seconds. One per request: slotted and not
    frozen (a frozen dataclass's __init__ costs three times as much); never mutated."""

    delay: float
    payload: bytes


@dataclass(frozen=True, slots=True)
class WordStream:
    count: int
    wait: float

    def item(self, index: int) -> bytes:
        return methods.word_at(index).encode()


OPEN, TOTAL, IN_FLIGHT, SERVED, ERRORS = range(5)
"""The cells of a counters row: the fields of ServerStats, in its order."""
WIDTH = 5


class Counters:
    """Server-wide counters behind ``stats()``; safe to update from any thread.

    They count in a row of ``WIDTH`` cells: a list of this process's own, or a row
    of memory shared by a server's worker processes (see ``shared_counters``).
    """

    def __init__(self, row: list[int] | memoryview | None = None) -> None:
        self._lock = threading.Lock()
        self._row: list[int] | memoryview = [0] * WIDTH if row is None else row

    def connection_opened(self) -> None:
        with self._lock:
            self._row[OPEN] += 1
            self._row[TOTAL] += 1

    def connection_closed(self) -> None:
        with self._lock:
            self._row[OPEN] -= 1

    def request_started(self) -> None:
        with self._lock:
            self._row[IN_FLIGHT] += 1

    def request_finished(self, served: bool) -> None:
        """A started request ended; ``served``: it was answered successfully.
        A failure is counted where its ERROR frame is made (ServerProtocol), not here."""
        with self._lock:
            self._row[IN_FLIGHT] -= 1
            if served:
                self._row[SERVED] += 1

    def request_served_at_once(self, count: int = 1) -> None:
        """``count`` requests answered as soon as they were read: each started and finished
        in one step (the asyncio model counts those of one read at once)."""
        with self._lock:
            self._row[SERVED] += count

    def error(self) -> None:
        """One ERROR frame sent, or one connection the server ended without one."""
        with self._lock:
            self._row[ERRORS] += 1

    def snapshot(self) -> methods.ServerStats:
        with self._lock:
            return stats(list(self._row))


def stats(cells: Sequence[int], workers: int = 1) -> methods.ServerStats:
    """The ServerStats of a counters row (or of rows summed), as this process answers it."""
    return methods.ServerStats(
        connections_open=cells[OPEN], connections_total=cells[TOTAL],
        requests_in_flight=cells[IN_FLIGHT], requests_served=cells[SERVED],
        errors=cells[ERRORS], workers=workers, pid=os.getpid(),
    )


def _echo(args: bytes, counters: Counters, max_frame_size: int) -> Reply:
    return Reply(*methods.parse_delay_and_body("echo", args))


def _upper(args: bytes, counters: Counters, max_frame_size: int) -> Reply:
    delay, body = methods.parse_delay_and_body("upper", args)
    try:
        return Reply(delay, body.decode().upper().encode())
    except UnicodeDecodeError as exc:
        raise methods.BadArguments("upper: text is not UTF-8") from exc


def _sleep(args: bytes, counters: Counters, max_frame_size: int) -> Reply:
    return Reply(methods.parse_sleep(args), b"")


def _blob(args: bytes, counters: Counters, max_frame_size: int) -> Reply:
    size, seed = methods.parse_blob(args)
    if size > max_payload_size(max_frame_size):
        raise methods.BadArguments(
            f"blob: size {size} exceeds the largest payload, {max_payload_size(max_frame_size)}"
        )
    return Reply(0.0, blob_bytes(size, seed))


def _stats(args: bytes, counters: Counters, max_frame_size: int) -> Reply:
    return Reply(0.0, counters.snapshot().to_json())


def _words(args: bytes, counters: Counters, max_frame_size: int) -> WordStream:
    return WordStream(*methods.parse_words(args))


_METHODS: dict[str, Callable[[bytes, Counters, int], Reply | WordStream]] = {
    "echo": _echo,
    "upper": _upper,
    "sleep": _sleep,
    "blob": _blob,
    "stats": _stats,
    "words": _words,
}


def plan(method: str, args: bytes, counters: Counters, max_frame_size: int) -> Reply | WordStream:
    """Raises UnknownMethod or methods.BadArguments for a request it cannot serve."""
    handler = _METHODS.get(method)
    if handler is None:
        raise UnknownMethod(f"unknown method {method!r}")
    return handler(args, counters, max_frame_size)
