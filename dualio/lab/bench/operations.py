"""What one "call" of a scenario does, on either face, and how its answer is checked.

An operation returns True when the answer is exactly what was asked for; a workload's
run (:mod:`dualio.lab.bench.workloads`) counts every False as a wrong answer.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from dualio import AsyncClient
from dualio_sync import Client
from dualio_transports.dualio_protocol.methods import word_at


def payload(index: int) -> bytes:
    return b"call-%010d" % index


class Operation(Protocol):
    name: str
    per_request_connection: bool

    def run_sync(self, client: Client, index: int) -> bool: ...

    async def run_async(self, client: AsyncClient, index: int) -> bool: ...


@dataclass
class Echo:
    """``echo(unique payload, delay=Y)``: the fan-out, throughput and overhead call."""

    delay: float
    name: str = "echo"
    per_request_connection: bool = False

    def run_sync(self, client: Client, index: int) -> bool:
        sent = payload(index)
        return client.echo(sent, delay=self.delay) == sent

    async def run_async(self, client: AsyncClient, index: int) -> bool:
        sent = payload(index)
        return await client.echo(sent, delay=self.delay) == sent


@dataclass
class SetUp(Echo):
    """Connection set-up: connect, handshake, one ``echo`` and close, a new connection per call."""

    name: str = "setup"
    per_request_connection: bool = True


@dataclass
class Upper:
    """The echo-server experiment: a new connection per request, ``upper(text, delay)``."""

    delay: float
    name: str = "upper"
    per_request_connection: bool = True

    def run_sync(self, client: Client, index: int) -> bool:
        text = payload(index).decode()
        return client.upper(text, delay=self.delay) == text.upper()

    async def run_async(self, client: AsyncClient, index: int) -> bool:
        text = payload(index).decode()
        return await client.upper(text, delay=self.delay) == text.upper()


@dataclass
class Blob:
    """``blob(size, seed=index)``; the client verifies every byte against the seed."""

    size: int
    name: str = "blob"
    per_request_connection: bool = False

    def run_sync(self, client: Client, index: int) -> bool:
        return len(client.blob(self.size, seed=index)) == self.size

    async def run_async(self, client: AsyncClient, index: int) -> bool:
        return len(await client.blob(self.size, seed=index)) == self.size


@dataclass
class WordCount:
    """The word-count experiment: each call streams ``words(count, wait)`` into one
    shared table and recomputes the top 10 after every word. Threads share the
    table under a lock; coroutines on one loop need none."""

    count: int
    wait: float
    name: str = "words"
    per_request_connection: bool = False
    table: Counter[str] = field(default_factory=Counter)
    top: list[tuple[str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run_sync(self, client: Client, index: int) -> bool:
        ok = True
        for position, word in enumerate(client.words(self.count, self.wait)):
            ok &= word == word_at(position)
            with self.lock:
                self.table[word] += 1
                self.top = self.table.most_common(10)
        return ok

    async def run_async(self, client: AsyncClient, index: int) -> bool:
        ok = True
        position = 0
        async for word in client.words(self.count, self.wait):
            ok &= word == word_at(position)
            position += 1
            self.table[word] += 1
            self.top = self.table.most_common(10)
        return ok and position == self.count

    @property
    def counted(self) -> int:
        return sum(self.table.values())
