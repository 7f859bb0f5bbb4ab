"""A lock on one Redis server: ``async with r.lock("report", lease=10):``.

Taking it is ``SET name token NX PX lease``, with a token of 128 random bits the holder
alone knows; releasing and extending it are scripts that act only while the key still
holds that token, so a holder whose lease ran out (and whose lock another holder may have
taken since) never frees or prolongs someone else's lock: it gets
:class:`LockNotOwnedError`, and the lock is left as it is. Every lock has a lease: a
holder that dies frees it when the lease runs out.

It is a lock of one server (no Redlock): a failover that loses the key can let two holders
in. Waiting for it polls every ``sleep`` seconds, within ``wait``.
"""

from __future__ import annotations

import secrets
import time
from types import TracebackType
from typing import TYPE_CHECKING, Generic, Self

from dualio.redis.method_support import Arg, S, Timeout, _milliseconds
from dualio.toolkit import UNSET, Unset
from dualio_transports.redis_protocol.errors import LockError, LockNotOwnedError

if TYPE_CHECKING:
    from datetime import timedelta

    from dualio.redis.commands import AsyncRedisCommands, AsyncScript

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""
EXTEND = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
local left = redis.call('PTTL', KEYS[1])
if ARGV[3] == '1' or left < 0 then
    left = 0
end
return redis.call('PEXPIRE', KEYS[1], left + tonumber(ARGV[2]))
"""


class AsyncLock(Generic[S]):
    """A lock named ``name`` on the client's server (see the module). ``lease`` is how
    long a holder keeps it unless it extends it; ``wait`` how long :meth:`acquire` waits
    for it (None: as long as it takes; 0: not at all), trying every ``sleep`` seconds."""

    def __init__(
        self, client: AsyncRedisCommands[S], name: Arg, lease: float | timedelta, wait: float | None,
        sleep: float, timeout: Timeout,
    ) -> None:
        lease_ms = _milliseconds(lease) if not isinstance(lease, int | float) else int(lease * 1000)
        if isinstance(lease, bool) or lease_ms < 1:
            raise ValueError(f"a lock's lease is 1 ms or more, not {lease!r}")
        if wait is not None and (isinstance(wait, bool) or not 0 <= wait < float("inf")):
            raise ValueError(f"wait is None (as long as it takes) or 0 seconds or more, not {wait!r}")
        if isinstance(sleep, bool) or not 0 < sleep < float("inf"):
            raise ValueError(f"sleep is a number of seconds over 0, not {sleep!r}")
        self._client: AsyncRedisCommands[S] = client
        self.name = name
        self.lease_ms = lease_ms
        self.wait = wait
        self.sleep = sleep
        self._timeout = timeout
        self.token: bytes | None = None
        self._release: AsyncScript[S] = client.register_script(RELEASE)
        self._extend: AsyncScript[S] = client.register_script(EXTEND)

    async def acquire(self, *, blocking: bool = True, wait: float | Unset | None = UNSET) -> bool:
        """Take the lock: True once taken; False when it was not free (``blocking=False``)
        or did not come free within ``wait`` (the lock's by default)."""
        if self.token is not None:
            raise LockError("this lock is held already: release it before taking it again")
        waiting = self.wait if isinstance(wait, Unset) else wait
        if waiting is not None and (isinstance(waiting, bool) or not isinstance(waiting, int | float)):
            raise TypeError(f"wait is a number of seconds or None, not {type(waiting).__name__}")
        ends = None if waiting is None else time.monotonic() + waiting
        token = secrets.token_hex(16).encode()
        while True:
            if await self._client.set(self.name, token, nx=True, px=self.lease_ms, timeout=self._timeout):
                self.token = token
                return True
            if not blocking:
                return False
            now = time.monotonic()
            if ends is not None and now >= ends:
                return False
            await self._client.pause(self.sleep if ends is None else min(self.sleep, ends - now))

    async def release(self) -> None:
        """Free the lock; :class:`LockNotOwnedError` when its lease ran out before (it is
        left as it is: another holder may have it)."""
        token, self.token = self.token, None
        if token is None:
            raise LockError("this lock is not held")
        if not await self._release([self.name], [token], timeout=self._timeout):
            raise LockNotOwnedError(f"the lock {self.name!r} was no longer held: its lease ran out")

    async def extend(self, seconds: float, *, replace: bool = False) -> None:
        """Hold the lock ``seconds`` longer (``replace``: ``seconds`` from now);
        :class:`LockNotOwnedError` when its lease ran out before."""
        if self.token is None:
            raise LockError("this lock is not held")
        added = int(seconds * 1000)
        if isinstance(seconds, bool) or added < 1:
            raise ValueError(f"a lock is extended by 1 ms or more, not {seconds!r}")
        if not await self._extend([self.name], [self.token, added, int(replace)], timeout=self._timeout):
            self.token = None
            raise LockNotOwnedError(f"the lock {self.name!r} was no longer held: its lease ran out")

    async def owned(self) -> bool:
        """Whether this holder has the lock now (its lease has not run out)."""
        return self.token is not None and await self._client.get(self.name, timeout=self._timeout) in (
            self.token, self.token.decode()
        )

    async def locked(self) -> bool:
        """Whether anyone has the lock now."""
        return bool(await self._client.exists(self.name, timeout=self._timeout))

    async def __aenter__(self) -> Self:
        if not await self.acquire():
            raise LockError(f"the lock {self.name!r} did not come free within {self.wait}s")
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        await self.release()
