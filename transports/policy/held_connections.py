"""How many connections a face opens, besides its shared one, for commands the server
holds (Redis's BLPOP, WAIT): each runs on one of its own, so it holds up no other call,
and one given up closes its connection (docs/redis.md)."""

from __future__ import annotations

HELD_CONNECTIONS = 16
"""The default bound; more such commands at once wait (within their timeout) for one to
be free."""


def check_held_connections(count: int) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"held_connections must be an int of 1 or more, not {count!r}")
    return count
