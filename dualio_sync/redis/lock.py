"""A lock on one Redis server, blocking face: ``with r.lock("report", lease=10):``.

GENERATED from dualio/redis/lock.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import secrets
import time
from types import TracebackType
from typing import TYPE_CHECKING, Generic, Self

from dualio_sync.redis.method_support import Arg, S, Timeout, _milliseconds
from dualio_sync.toolkit import UNSET, Unset
from dualio_transports.redis_protocol.errors import LockError, LockNotOwnedError

if TYPE_CHECKING:
    from datetime import timedelta

    from dualio_sync.redis.commands import RedisCommands, Script

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


class Lock(Generic[S]):
    """A lock named ``name`` on the client's server (see the module). ``lease`` is how
    long a holder keeps it unless it extends it; ``wait`` how long :meth:`acquire` waits
    for it (None: as long as it takes; 0: not at all), trying every ``sleep`` seconds."""

    def __init__(
        self, client: RedisCommands[S], name: Arg, lease: float | timedelta, wait: float | None,
        sleep: float, timeout: Timeout,
    ) -> None:
        lease_ms = _milliseconds(lease) if not isinstance(lease, int | float) else int(lease * 1000)
        if isinstance(lease, bool) or lease_ms < 1:
            raise ValueError(f"a lock's lease is 1 ms or more, not {lease!r}")
        if wait is not None and (isinstance(wait, bool) or not 0 <= wait < float("inf")):
            raise ValueError(f"wait is None (as long as it takes) or 0 seconds or more, not {wait!r}")
        if isinstance(sleep, bool) or not 0 < sleep < float("inf"):
            raise ValueError(f"sleep is a number of seconds over 0, not {sleep!r}")
        self._client: RedisCommands[S] = client
        self.name = name
        self.lease_ms = lease_ms
        self.wait = wait
        self.sleep = sleep
        self._timeout = timeout
        self.token: bytes | None = None
        self._release: Script[S] = client.register_script(RELEASE)
        self._extend: Script[S] = client.register_script(EXTEND)

    def acquire(self, *, blocking: bool = True, wait: float | Unset | None = UNSET) -> bool:
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
            if self._client.set(self.name, token, nx=True, px=self.lease_ms, timeout=self._timeout):
                self.token = token
                return True
            if not blocking:
                return False
            now = time.monotonic()
            if ends is not None and now >= ends:
                return False
            self._client.pause(self.sleep if ends is None else min(self.sleep, ends - now))

    def release(self) -> None:
        """Free the lock; :class:`LockNotOwnedError` when its lease ran out before (it is
        left as it is: another holder may have it)."""
        token, self.token = self.token, None
        if token is None:
            raise LockError("this lock is not held")
        if not self._release([self.name], [token], timeout=self._timeout):
            raise LockNotOwnedError(f"the lock {self.name!r} was no longer held: its lease ran out")

    def extend(self, seconds: float, *, replace: bool = False) -> None:
        """Hold the lock ``seconds`` longer (``replace``: ``seconds`` from now);
        :class:`LockNotOwnedError` when its lease ran out before."""
        if self.token is None:
            raise LockError("this lock is not held")
        added = int(seconds * 1000)
        if isinstance(seconds, bool) or added < 1:
            raise ValueError(f"a lock is extended by 1 ms or more, not {seconds!r}")
        if not self._extend([self.name], [self.token, added, int(replace)], timeout=self._timeout):
            self.token = None
            raise LockNotOwnedError(f"the lock {self.name!r} was no longer held: its lease ran out")

    def owned(self) -> bool:
        """Whether this holder has the lock now (its lease has not run out)."""
        return self.token is not None and self._client.get(self.name, timeout=self._timeout) in (
            self.token, self.token.decode()
        )

    def locked(self) -> bool:
        """Whether anyone has the lock now."""
        return bool(self._client.exists(self.name, timeout=self._timeout))

    def __enter__(self) -> Self:
        if not self.acquire():
            raise LockError(f"the lock {self.name!r} did not come free within {self.wait}s")
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        self.release()
