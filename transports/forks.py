"""Which process generation this is: bumped in the child after every ``fork()``.

A client remembers the generation its connection was made in. A different one
means the connection (its socket, its locks, its reader thread) belongs to the
parent: the child must never write to it or read from it, only drop it.
"""

from __future__ import annotations

import os

generation = 0


def _forked() -> None:
    global generation
    generation += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)
