"""Which keys a Redis command names, by its key specs (``command_spec.KEY_SPECS``, from
Redis's own command spec), and which of Redis Cluster's 16,384 hash slots a key is in.

Keys are found as the server finds them (``getKeysUsingKeySpecs`` in Redis's db.c): each
spec begins at an argument's position, or after a keyword searched for from a position
(backwards from the end when it is negative), then takes a range of arguments (up to a
last key counted from the first, or from the end; every ``step``-th; with ``limit``, a
part of what is left) or a count of keys found in an argument (``keynum``). A spec whose
keys cannot be known from the spec alone adds none, but for the two commands whose keys
the server finds by hand: SORT's STORE destination, and MIGRATE's key left empty when its
KEYS list names them. A shard channel (SPUBLISH, SSUBSCRIBE) counts as a key: it has a
slot, though ``COMMAND GETKEYS`` does not list it.
"""

from __future__ import annotations

from binascii import crc_hqx
from collections.abc import Sequence

from dualio_transports.redis_protocol.command_spec import KEY_SPECS

SLOTS = 16384
"""Hash slots in a Redis Cluster."""


def key_slot(key: bytes) -> int:
    """The hash slot of ``key``: CRC16 (XMODEM) of the key, or of its hash tag, the part
    between the first ``{`` and the ``}`` after it when that part is not empty."""
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1 : end]
    return crc_hqx(key, 0) & (SLOTS - 1)


def command_keys(argv: Sequence[bytes]) -> list[bytes]:
    """The keys ``argv`` (a command and its arguments, as sent) names, in order; none for a
    command without keys, or arguments too few for its specs (the server then refuses it)."""
    if not argv:
        return []
    name = argv[0].upper().decode(errors="replace")
    specs = KEY_SPECS.get(f"{name} {argv[1].upper().decode(errors='replace')}") if len(argv) > 1 else None
    if specs is None:
        specs = KEY_SPECS.get(name, ())
    keys: list[bytes] = []
    for search, where, start_from, find, a, b, c in specs:
        first = _begin(argv, search, where, start_from)
        if first is None:
            continue
        positions = _found(argv, first, find, a, b, c)
        keys += [argv[i] for i in positions if 0 < i < len(argv)]
    if name == "SORT":
        stores = [i + 1 for i in range(2, len(argv) - 1) if argv[i].upper() == b"STORE"]
        keys += [argv[stores[-1]]] if stores else []
    elif name == "MIGRATE" and len(argv) > 3 and not argv[3] and keys and not keys[0]:
        del keys[0]  # the KEYS form: its keys follow the keyword
    return keys


def _begin(argv: Sequence[bytes], search: str, where: int | str, start_from: int) -> int | None:
    """Where a spec's keys begin, or None when they cannot be found."""
    if search == "index" and isinstance(where, int):
        return where
    if search == "keyword" and isinstance(where, str):
        word = where.encode()
        count = len(argv)
        forward = start_from > 0
        for i in range(start_from, count) if forward else range(count + start_from, 0, -1):
            if 0 < i < count and argv[i].upper() == word:
                return i + 1
    return None


def _found(argv: Sequence[bytes], first: int, find: str, a: int, b: int, c: int) -> range:
    """The positions of a spec's keys, from ``first``."""
    count = len(argv)
    if find == "range":
        last_key, step, limit = a, b, c
        if last_key >= 0:
            last = first + last_key
        elif not limit:
            last = count + last_key
        else:
            last = first + ((count - first) // limit + last_key)
        return range(first, last + 1, step)
    if find == "keynum":
        where_count, first_key, step = a, b, c
        if first + where_count >= count:
            return range(0)
        try:
            keys = int(argv[first + where_count])
        except ValueError:
            return range(0)
        if keys < 0:
            return range(0)
        start = first + first_key
        return range(start, start + keys, step)
    return range(0)
