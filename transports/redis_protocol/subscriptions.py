"""Which subscription of a Redis connection each channel and each pattern feeds.

A subscription is a stream call (its key is the call table's): ``SUBSCRIBE`` names
channels, ``PSUBSCRIBE`` patterns. A channel's ``message`` pushes go to its
subscription, a pattern's ``pmessage`` pushes to its; the subscription ends when the
server has confirmed ``unsubscribe`` (or ``punsubscribe``) for each of its names. A name
taken by a later subscription is that one's from then on.
"""

from __future__ import annotations

from collections.abc import Iterable

Name = tuple[bool, bytes]
"""``(is a pattern, the channel or pattern)``."""


class Subscriptions:
    __slots__ = ("_names", "_owners")

    def __init__(self) -> None:
        self._owners: dict[Name, int] = {}
        self._names: dict[int, set[Name]] = {}

    def add(self, key: int, patterns: bool, names: Iterable[bytes]) -> None:
        mine = self._names.setdefault(key, set())
        for name in names:
            entry = (patterns, name)
            earlier = self._owners.get(entry)
            if earlier is not None and earlier != key:
                self._names[earlier].discard(entry)
            self._owners[entry] = key
            mine.add(entry)

    def forget(self, key: int) -> None:
        """``key`` is a new call's: what an earlier call with that key subscribed to is not."""
        for entry in self._names.pop(key, ()):
            if self._owners.get(entry) == key:
                del self._owners[entry]

    def names(self, key: int) -> list[Name]:
        return sorted(self._names.get(key, ()))

    def owner(self, patterns: bool, name: bytes) -> int | None:
        """The key of the subscription ``name``'s messages go to."""
        return self._owners.get((patterns, name))

    def unsubscribed(self, patterns: bool, name: bytes) -> int | None:
        """The server confirmed it no longer sends ``name``'s messages: the key of the
        subscription that this ends (its last name), or None."""
        key = self._owners.pop((patterns, name), None)
        if key is None:
            return None
        mine = self._names[key]
        mine.discard((patterns, name))
        if mine:
            return None
        del self._names[key]
        return key
