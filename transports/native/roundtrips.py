"""``call`` and ``ping`` of the anyio transport, over its one round trip (the asyncio fast
path has its own, one coroutine level deep)."""

from __future__ import annotations

import time
from typing import TypeVar

from transports.wire import methods
from transports.wire.calls import CallKind, CallState, OnCallTable, W

T = TypeVar("T")


class Roundtrips(OnCallTable[W]):
    async def _roundtrip(
        self, kind: CallKind, method: str, args: bytes, timeout: float | None, sent: list[int] | None
    ) -> CallState[W]:
        """Send one request and wait for its final frame within ``timeout``."""
        raise NotImplementedError

    async def call(self, op: methods.Call[T], timeout: float | None, sent: list[int] | None = None) -> T:
        call = await self._roundtrip(CallKind.UNARY, op.method, op.args, timeout, sent)
        return op.decode(call.outcome())

    async def ping(self, timeout: float | None, sent: list[int] | None = None) -> float:
        started = time.perf_counter()
        call = await self._roundtrip(CallKind.PING, "ping", b"", timeout, sent)
        call.outcome()
        return time.perf_counter() - started
