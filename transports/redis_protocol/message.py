"""What a Redis subscription delivers, the same type on both faces."""

from __future__ import annotations

from typing import Generic, NamedTuple, TypeVar

S = TypeVar("S", bytes, str)


class Message(NamedTuple, Generic[S]):
    """A message a subscription received: its channel, its data, and the pattern that
    matched the channel (None for a channel subscribed by name)."""

    channel: S
    data: S
    pattern: S | None = None
