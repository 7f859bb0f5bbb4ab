"""Which process generation this is: bumped in the child after every ``fork()``.

A client remembers the generation its connection was made in. A different one
means the connection (its socket, its locks, its reader thread) belongs to the
parent: the child must never write to it or read from it, only drop it. A client
replaces its own locks in the child under :data:`replacing`.
"""

from __future__ import annotations

import os
import threading

generation = 0

replacing = threading.Lock()
"""Held while a client replaces, in a child, what it inherited across ``fork()``. Each
child gets a new one: the parent's may have been held, at the fork, by a thread the
child does not have."""


def _forked() -> None:
    global generation, replacing
    generation += 1
    replacing = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)
