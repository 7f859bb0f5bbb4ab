"""Optimistic transactions on the blocking face: WATCH on a connection of its own.

GENERATED from dualio/redis/watch.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from dualio_sync.redis.commands import RedisCommands, Subscription
from dualio_sync.redis.method_support import Arg, S, T, Timeout
from dualio_transports.policy.timeouts import UNSET, pick_timeout
from dualio_transports.redis_protocol.resp import encode_command
from dualio_transports.wire.deadline import deadline
from dualio_transports.wire.errors import RemoteError, UsageError
from dualio_transports.wire.failures import call_timeout
from dualio_transports.wire.request import Request

if TYPE_CHECKING:
    from dualio_transports.interface import BlockingTransport


class Watch(RedisCommands[S]):
    """The commands of a client, on a connection that watches ``names`` (see the module)."""

    def __init__(self, client: RedisCommands[S], names: Sequence[Arg], timeout: Timeout) -> None:
        if not names:
            raise ValueError("watch() needs at least one key")
        self._client: RedisCommands[S] = client
        self._names = tuple(names)
        self._setup_commands(client.decode_responses)
        self.timeout = pick_timeout(timeout, client.timeout)
        self._conn: BlockingTransport | None = None
        self._slot = False
        self._healthy = True
        self._executed = False

    def __enter__(self) -> Self:
        client = self._client
        client._check_caller()
        until = deadline(self.timeout)
        if not client._take_held_slot(until):
            raise call_timeout()
        self._slot = True
        try:
            self._conn = client._idle_held() or client._open_held_by(until)
            watch = Request("WATCH", encode_command("WATCH", *self._names), self._okay, False)
            self._call(watch, UNSET)
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        self._release()

    def _release(self) -> None:
        """UNWATCH, unless EXEC ended the watch, and the connection back to the client
        (closed instead when a call on it was given up or failed, or UNWATCH was)."""
        client, conn, self._conn = self._client, self._conn, None
        kept = False
        try:
            if conn is not None and self._healthy and not conn.closed:
                if not self._executed:
                    conn.call(Request("UNWATCH", encode_command("UNWATCH"), self._okay, False),
                                    deadline(self.timeout))
                kept = True
        finally:
            if conn is not None:
                if kept:
                    client._keep_held(conn)
                else:
                    client._drop_held(conn)
            if self._slot:
                self._slot = False
                client._give_held_slot()

    def _call(self, request: Request[T], timeout: float | Any) -> T:
        return self._held_call(request, deadline(pick_timeout(timeout, self.timeout)))

    def _held_call(self, request: Request[T], until: float) -> T:
        """Every command of the watch, on its connection, by ``until``."""
        conn = self._conn
        if conn is None:
            raise UsageError("a watch's commands run inside its 'with' block")
        if request.method == "transaction":
            self._executed = True  # EXEC ends the watch, whether the transaction ran or not
        try:
            return conn.call(request, until)
        except RemoteError:
            raise
        except BaseException:
            self._healthy = False  # given up or lost: what the connection holds is unknown
            raise

    def _ping(self, timeout: float | Any) -> float:
        started = time.perf_counter()
        self._call(Request("PING", encode_command("PING"), self._value, True), timeout)
        return time.perf_counter() - started

    def watch(self, *names: Arg, timeout: Timeout = UNSET) -> Watch[S]:
        raise UsageError("a watch cannot be opened inside another: watch every key at once")

    def subscribe(self, *channels: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        raise UsageError("subscribe on the client, not inside a watch")

    def psubscribe(self, *patterns: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        raise UsageError("subscribe on the client, not inside a watch")
