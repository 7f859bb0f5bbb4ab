"""The bytes of ``blob(size, seed)``: cheap to make, easy to check on both sides.

Chunk ``k`` (4,096 bytes) is SHA-256(seed:u32 || k:u32) repeated 128 times, so a
chunk delivered out of place or from another seed is detected.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

CHUNK = 4096
_DIGEST = 32


def _chunk(seed: int, index: int) -> bytes:
    digest = hashlib.sha256(seed.to_bytes(4, "big") + index.to_bytes(4, "big")).digest()
    return digest * (CHUNK // _DIGEST)


@lru_cache(maxsize=8)
def blob_bytes(size: int, seed: int) -> bytes:
    chunks = -(-size // CHUNK)
    return b"".join(_chunk(seed, k) for k in range(chunks))[:size]
