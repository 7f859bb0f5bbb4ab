"""Redis Sentinel, blocking face: ``Redis(sentinels=[("127.0.0.1", 26379)], service_name="mymaster")``.

GENERATED from dualio/redis/sentinel.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from dualio_sync.toolkit import ClosedError, ConnectError, DualioError, Lock, RetryPolicy

if TYPE_CHECKING:
    from dualio_sync.redis.client import Redis

Address = tuple[str, int]

SENTINEL_TIMEOUT = 1.0
"""Seconds one sentinel has to connect and answer, by default."""
SENTINEL_RETRY = RetryPolicy(max_delay=0.1)
"""The retry policy of a client given sentinels and no ``retry``: a failover is what it
waits for, so it asks again every 50-100 ms (the call's deadline and the 30 s budget still
bound it), not after delays doubling up to 2 s as on one server."""
FRESH = 0.05
"""An answer of the sentinels this recent is taken again without asking (the waiting calls
of one client ask them about 20 times a second at most)."""


def check_sentinels(sentinels: Sequence[Address], service_name: object) -> list[Address]:
    """The sentinels' addresses, checked: a non-empty sequence of ``(host, port)``."""
    if isinstance(sentinels, str | bytes) or not isinstance(sentinels, Sequence) or not sentinels:
        raise ValueError(f"sentinels must be a non-empty sequence of (host, port), not {sentinels!r}")
    checked: list[Address] = []
    for address in sentinels:
        if not isinstance(address, tuple) or len(address) != 2:
            raise ValueError(f"each sentinel must be a (host, port) tuple, not {address!r}")
        host, port = address
        if not isinstance(host, str) or not host:
            raise TypeError(f"a sentinel's host must be a non-empty str, not {host!r}")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port <= 0xFFFF:
            raise ValueError(f"a sentinel's port must be an int in 1..65535, not {port!r}")
        checked.append((host, port))
    if not isinstance(service_name, str) or not service_name:
        raise ValueError(f"service_name must be a non-empty str with sentinels, not {service_name!r}")
    return checked


class Sentinels:
    """The sentinels of one service, asked where its primary is now. ``client(host,
    port)`` makes the (lazy) client of one sentinel."""

    def __init__(
        self, addresses: list[Address], service_name: str, timeout: float | None,
        client: Callable[[str, int], Redis[Any]],
    ) -> None:
        self.addresses = addresses  # the one that answered last, first
        self.service_name = service_name
        self.timeout = timeout
        self._client = client
        self._clients: dict[Address, Redis[Any]] = {}
        self._making = Lock()
        self._closed = False
        self._answer: tuple[float, Address] | None = None  # when the sentinels last named one, and which

    def primary(self, until: float) -> Address:
        """The primary's address as the first sentinel that knows it says, by ``until``
        (an answer less than ``FRESH`` old is taken again)."""
        answer = self._answer
        if answer is not None and time.monotonic() - answer[0] < FRESH:
            return answer[1]
        said: list[str] = []
        unknown = 0
        for address in list(self.addresses):
            left = until - time.monotonic()
            if left <= 0:
                said.append("the call's deadline passed")
                break
            where = f"sentinel {address[0]}:{address[1]}"
            try:
                sentinel = self._sentinel(address)
                wait = left if self.timeout is None else min(left, self.timeout)
                reply = sentinel.execute(
                    "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.service_name,
                    timeout=None if wait == math.inf else wait,
                )
            except DualioError as exc:
                said.append(f"{where}: {type(exc).__name__}: {exc}")
                continue
            if reply is None:
                unknown += 1
                said.append(f"{where}: no service named {self.service_name!r}")
                continue
            host, port = _text(reply[0]), int(reply[1])
            if address != self.addresses[0]:
                with contextlib.suppress(ValueError):  # moved first by another thread already
                    self.addresses.remove(address)
                    self.addresses.insert(0, address)
            self._answer = (time.monotonic(), (host, port))
            return host, port
        failure = ConnectError(f"no sentinel named the primary of {self.service_name!r}: " + "; ".join(said))
        if unknown == len(self.addresses):
            failure.retryable = False  # a wrong name: no retry mends it
        raise failure

    def _sentinel(self, address: Address) -> Redis[Any]:
        client = self._clients.get(address)
        if client is not None and not client.closed:
            return client
        if self._closed:
            raise ClosedError("the client is closed")
        with self._making:
            if self._closed:  # closed while this caller waited
                raise ClosedError("the client is closed")
            client = self._clients.get(address)
            if client is None or client.closed:
                if client is not None:
                    client.close()
                client = self._clients[address] = self._client(*address)
                client.open()
        return client

    def close(self) -> None:
        self._closed = True
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
