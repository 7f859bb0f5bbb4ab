"""Optimistic transactions on the blocking face: WATCH on a connection of its own.

GENERATED from dualio/redis/watch.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import TracebackType
from typing import Self

from dualio_sync.redis.commands import RedisCommands, Subscription
from dualio_sync.redis.method_support import Arg, S, T, Timeout
from dualio_sync.toolkit import UNSET, Dedicated, Request, UsageError
from dualio_transports.redis_protocol.resp import encode_command


class Watch(RedisCommands[S]):
    """The commands of a client, on a connection that watches ``names`` (see the module)."""

    def __init__(self, client: RedisCommands[S], names: Sequence[Arg], timeout: Timeout) -> None:
        if not names:
            raise ValueError("watch() needs at least one key")
        self._names = tuple(names)
        self._setup_commands(client.decode_responses)
        self._own: Dedicated = client.dedicated(timeout)
        self.timeout = self._own.timeout
        self._executed = False

    def __enter__(self) -> Self:
        self._own.__enter__()
        try:
            self.request(Request("WATCH", encode_command("WATCH", *self._names), self._okay, False))
        except BaseException:
            self._own.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        """UNWATCH, unless EXEC ended the watch, and the connection back to the client
        (closed instead when a call on it was given up or failed, or UNWATCH was)."""
        try:
            if not self._executed and not self._own.closed:
                self.request(Request("UNWATCH", encode_command("UNWATCH"), self._okay, False))
        finally:
            self._own.__exit__(exc_type, exc, tb)

    @property
    def closed(self) -> bool:
        """Whether the watch's commands can no longer run (outside its block, or its
        connection ended)."""
        return self._own.closed

    def request(self, request: Request[T], timeout: Timeout = UNSET, held: bool = False) -> T:
        """Every command of the watch, on its connection."""
        if request.method == "transaction":
            self._executed = True  # EXEC ends the watch, whether the transaction ran or not
        return self._own.request(request, timeout)

    def ping(self, *, timeout: Timeout = UNSET) -> float:
        started = time.perf_counter()
        self.request(Request("PING", encode_command("PING"), self._value, True), timeout)
        return time.perf_counter() - started

    def watch(self, *names: Arg, timeout: Timeout = UNSET) -> Watch[S]:
        raise UsageError("a watch cannot be opened inside another: watch every key at once")

    def subscribe(self, *channels: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        raise UsageError("subscribe on the client, not inside a watch")

    def psubscribe(self, *patterns: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        raise UsageError("subscribe on the client, not inside a watch")
