"""Which subscription of a Redis connection each channel and each pattern feeds, and
when the server has answered each SUBSCRIBE and UNSUBSCRIBE.

A subscription is a stream call (its key is the call table's): ``SUBSCRIBE`` names
channels, ``PSUBSCRIBE`` patterns, ``SSUBSCRIBE`` shard channels (a Redis Cluster slot's
own). The server confirms each name of the command with a ``subscribe`` (``psubscribe``,
``ssubscribe``) push, all of them where the command's reply would be in the order of
replies: the last of them is the command's answer in order. A name's ``message``
(``pmessage``, ``smessage``) pushes go to the newest subscription that holds it. Giving a
subscription up unsubscribes its names; the server confirms each with an ``unsubscribe``
(``punsubscribe``, ``sunsubscribe``) push, and the last of them ends the subscription. A
cluster node whose slot moves away unsubscribes that slot's shard channels itself
(``sunsubscribe`` pushes nobody asked for): :meth:`dropped` ends their subscription.

Every table here is keyed by names the server confirms, so none keeps an entry the
server will not answer, except the names of a SUBSCRIBE the server refused with an
error reply: :meth:`refused` drops them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Literal

Kind = Literal["channel", "pattern", "shard"]
"""What a subscription's names are: channels (SUBSCRIBE), patterns (PSUBSCRIBE) or shard
channels (SSUBSCRIBE)."""
Name = tuple[Kind, bytes]
"""``(its kind, the channel or pattern)``."""


class Subscriptions:
    __slots__ = ("_confirming", "_ending", "_leaving", "_live", "_names", "_unconfirmed")

    def __init__(self) -> None:
        self._live: dict[Name, int] = {}  # a name's newest subscription: its messages go there
        self._names: dict[int, set[Name]] = {}  # a subscription's names while it is live
        self._confirming: dict[Name, deque[int]] = {}  # subscriptions a name's confirmation is due to
        self._unconfirmed: dict[int, int] = {}  # a subscription's confirmations still due
        self._leaving: dict[Name, deque[int]] = {}  # given-up subscriptions a name's unsubscribe ends
        self._ending: dict[int, int] = {}  # a given-up subscription's unsubscribe confirmations due

    def add(self, key: int, kind: Kind, names: Sequence[bytes]) -> None:
        """Subscription ``key`` asks for ``names`` (the server confirms each, repeats included)."""
        mine = self._names.setdefault(key, set())
        for name in names:
            entry = (kind, name)
            self._live[entry] = key
            mine.add(entry)
            self._confirming.setdefault(entry, deque()).append(key)
        self._unconfirmed[key] = self._unconfirmed.get(key, 0) + len(names)

    def confirmed(self, kind: Kind, name: bytes) -> int | None:
        """The server confirmed a subscription to ``name``: the key of the subscription
        whose last confirmation this is (its command's answer in order), or None."""
        return _count_down(self._confirming, self._unconfirmed, (kind, name))

    def refused(self, key: int) -> None:
        """The server answered subscription ``key``'s command with an error, or the
        command never left: no name of it is confirmed."""
        if key not in self._unconfirmed:
            return
        del self._unconfirmed[key]
        for entry in self._names.pop(key, ()):
            waiting = self._confirming.get(entry)
            if waiting is not None:
                while key in waiting:
                    waiting.remove(key)
                if not waiting:
                    del self._confirming[entry]
            if self._live.get(entry) == key:
                del self._live[entry]

    def owner(self, kind: Kind, name: bytes) -> int | None:
        """The key of the subscription ``name``'s messages go to: its newest, once the
        server confirmed it. Before that, a message for ``name`` was sent to a
        subscription given up meanwhile, and is nobody's."""
        key = self._live.get((kind, name))
        return None if key is None or key in self._unconfirmed else key

    def leave(self, key: int) -> list[Name]:
        """Subscription ``key`` is given up: the names to unsubscribe (sorted); their
        confirmations will end it."""
        names = sorted(self._names.pop(key, ()))
        for entry in names:
            if self._live.get(entry) == key:
                del self._live[entry]
            self._leaving.setdefault(entry, deque()).append(key)
        if names:
            self._ending[key] = len(names)
        return names

    def unsubscribed(self, kind: Kind, name: bytes) -> int | None:
        """The server confirmed it no longer sends ``name``'s messages: the key of the
        given-up subscription that this ends (its last name), or None."""
        return _count_down(self._leaving, self._ending, (kind, name))

    def dropped(self, kind: Kind, name: bytes) -> int | None:
        """The server unsubscribed ``name`` unasked (its slot moved to another node): the key
        of the confirmed subscription that held it, which is over, its names forgotten (the
        server drops them all: a shard subscription's names are one slot's); else None."""
        key = self.owner(kind, name)
        if key is None:
            return None
        for entry in self._names.pop(key, ()):
            if self._live.get(entry) == key:
                del self._live[entry]
        return key


def _count_down(due: dict[Name, deque[int]], left: dict[int, int], entry: Name) -> int | None:
    """The server confirmed ``entry`` to the oldest subscription it is ``due`` to: that
    subscription's key if this was the last confirmation it had ``left``, else None."""
    keys = due.get(entry)
    if not keys:
        return None
    key = keys.popleft()
    if not keys:
        del due[entry]
    remaining = left[key] - 1
    if remaining:
        left[key] = remaining
        return None
    del left[key]
    return key

