"""Optimistic transactions: WATCH on a connection of the client's own for the duration.

``async with r.watch("stock") as tx:`` takes one of the client's connections for held
commands (``held_connections``, as BLPOP does), says WATCH on it, and gives ``tx``: every
command method of the client, run on that connection, and ``tx.transaction(...)``, whose
MULTI ... EXEC runs there too and raises :class:`WatchError` when a watched key changed in
between. Leaving the block says UNWATCH and gives the connection back (closes it, if a
call on it was given up or failed).

The connection is the watch's alone: a WATCH on a connection that concurrent calls share
would guard nothing, since their commands would run in between. Nothing on it is sent
twice: a lost connection ends the watch with the error.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import TracebackType
from typing import Self

from dualio.redis.commands import AsyncRedisCommands, AsyncSubscription
from dualio.redis.method_support import Arg, S, T, Timeout
from dualio.toolkit import UNSET, AsyncDedicated, Request, UsageError
from dualio_transports.redis_protocol.resp import encode_command


class AsyncWatch(AsyncRedisCommands[S]):
    """The commands of a client, on a connection that watches ``names`` (see the module)."""

    def __init__(self, client: AsyncRedisCommands[S], names: Sequence[Arg], timeout: Timeout) -> None:
        if not names:
            raise ValueError("watch() needs at least one key")
        self._names = tuple(names)
        self._setup_commands(client.decode_responses)
        self._own: AsyncDedicated = client.dedicated(timeout)
        self.timeout = self._own.timeout
        self._executed = False

    async def __aenter__(self) -> Self:
        await self._own.__aenter__()
        try:
            await self.request(Request("WATCH", encode_command("WATCH", *self._names), self._okay, False))
        except BaseException:
            await self._own.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        """UNWATCH, unless EXEC ended the watch, and the connection back to the client
        (closed instead when a call on it was given up or failed, or UNWATCH was)."""
        try:
            if not self._executed and not self._own.closed:
                await self.request(Request("UNWATCH", encode_command("UNWATCH"), self._okay, False))
        finally:
            await self._own.__aexit__(exc_type, exc, tb)

    @property
    def closed(self) -> bool:
        """Whether the watch's commands can no longer run (outside its block, or its
        connection ended)."""
        return self._own.closed

    async def request(self, request: Request[T], timeout: Timeout = UNSET, held: bool = False) -> T:
        """Every command of the watch, on its connection."""
        if request.method == "transaction":
            self._executed = True  # EXEC ends the watch, whether the transaction ran or not
        return await self._own.request(request, timeout)

    async def ping(self, *, timeout: Timeout = UNSET) -> float:
        started = time.perf_counter()
        await self.request(Request("PING", encode_command("PING"), self._value, True), timeout)
        return time.perf_counter() - started

    def watch(self, *names: Arg, timeout: Timeout = UNSET) -> AsyncWatch[S]:
        raise UsageError("a watch cannot be opened inside another: watch every key at once")

    def subscribe(self, *channels: Arg, timeout: Timeout = UNSET) -> AsyncSubscription[S]:
        raise UsageError("subscribe on the client, not inside a watch")

    def psubscribe(self, *patterns: Arg, timeout: Timeout = UNSET) -> AsyncSubscription[S]:
        raise UsageError("subscribe on the client, not inside a watch")
