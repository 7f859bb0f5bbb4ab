"""A client-side cache kept fresh by the server (RESP3 ``CLIENT TRACKING``).

The connection's handshake says ``CLIENT TRACKING ON``; from then on the server
remembers which keys this connection read, and when one changes it sends an
``invalidate`` push on the same connection, which drops that key's entries here. What
the cache promises, and how:

- **Never stale once the invalidation arrived.** A reply is stored only if no
  invalidation, and no flush, came while its command was under way (a counter, read
  before the command is sent and again as its reply is stored): a reply whose key was
  written meanwhile is never kept. A hit is served only while the connection is open
  and nothing unread waits on its socket (an invalidation in the kernel's buffer makes
  the call ask the server, which reads it first).
- **Flushed whole** when a connection is made (a new one has missed whatever changed
  meanwhile) and when the server says to (a null invalidation: FLUSHALL); and off on a
  RESP2 server, which sends no pushes on the same connection.
- **Bounded**: ``max_entries`` replies and ``max_bytes`` of commands and replies, the
  least recently used dropped first. An invalidation for a key never read, a flood of
  them, or a push the cache does not know costs a counter, nothing kept.

It is one connection's: a client uses it from any thread, under its lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from dualio_transports.redis_protocol.resp import Value

MAX_ENTRIES = 10_000
MAX_BYTES = 64 * 1024 * 1024


@dataclass
class CacheStats:
    """What the cache did, counted since it was made."""

    hits: int = 0
    misses: int = 0
    stored: int = 0
    invalidations: int = 0  # keys the server said changed (one flush counts one)
    evictions: int = 0  # entries dropped for the bounds
    flushes: int = 0
    unknown_pushes: int = 0


class ClientCache:
    """The cache of one client (see the module): ``Redis(cache=ClientCache())``."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        for name, value in (("max_entries", max_entries), ("max_bytes", max_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int of 1 or more, not {value!r}")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.stats = CacheStats()
        self.active = False
        """Whether the connection's server tracks its reads (set by its handshake)."""
        self.generation = 0
        """Counts invalidations and flushes: a reply is stored only if it did not move."""
        self._lock = threading.Lock()
        self._entries: OrderedDict[bytes, tuple[bytes, bytes]] = OrderedDict()  # command -> key, reply
        self._by_key: dict[bytes, set[bytes]] = {}
        self._bytes = 0
        self._owner: object | None = None

    def attach(self, owner: object) -> None:
        """Give the cache to one client: a second one would mix two connections' invalidations."""
        if self._owner is not None and self._owner is not owner:
            raise ValueError("this ClientCache belongs to another client: give each client its own")
        self._owner = owner

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """Bytes of the commands and replies held."""
        return self._bytes

    # -- the face's side ----------------------------------------------------------------

    def missed(self) -> None:
        """A read that did not ask the cache (its connection was closed, or had input unread)."""
        with self._lock:
            self.stats.misses += 1

    def get(self, command: bytes) -> bytes | None:
        """The stored reply to ``command`` (a whole encoded command), or None."""
        with self._lock:
            entry = self._entries.get(command) if self.active else None
            if entry is None:
                self.stats.misses += 1
                return None
            self._entries.move_to_end(command)
            self.stats.hits += 1
            return entry[1]

    def put(self, command: bytes, key: bytes, reply: bytes, generation: int) -> None:
        """Keep ``reply`` to ``command`` (which reads ``key``), unless an invalidation or
        a flush came since ``generation`` was read, before the command was sent."""
        cost = len(command) + len(reply)
        with self._lock:
            if generation != self.generation or not self.active or cost > self.max_bytes:
                return
            if command in self._entries:
                self._drop(command)
            self._entries[command] = (key, reply)
            self._by_key.setdefault(key, set()).add(command)
            self._bytes += cost
            self.stats.stored += 1
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                self._drop(next(iter(self._entries)))
                self.stats.evictions += 1

    def _drop(self, command: bytes) -> None:
        key, reply = self._entries.pop(command)
        self._bytes -= len(command) + len(reply)
        commands = self._by_key.get(key)
        if commands is not None:
            commands.discard(command)
            if not commands:
                del self._by_key[key]

    # -- the connection's side ----------------------------------------------------------

    def flush(self, active: bool | None = None) -> None:
        """Drop everything (and, given ``active``, say whether the server tracks reads now)."""
        with self._lock:
            self.generation += 1
            self._entries.clear()
            self._by_key.clear()
            self._bytes = 0
            self.stats.flushes += 1
            if active is not None:
                self.active = active

    def invalidated(self, keys: Value) -> None:
        """The server's ``invalidate`` push: ``keys`` changed (None: every key, FLUSHALL)."""
        if keys is None:
            self.flush()
            self.stats.invalidations += 1
            return
        if not isinstance(keys, list):
            self.stats.unknown_pushes += 1
            return
        with self._lock:
            self.generation += 1
            for key in keys:
                self.stats.invalidations += 1
                for command in list(self._by_key.get(key, ()) if isinstance(key, bytes) else ()):
                    self._drop(command)
