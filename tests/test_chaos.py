"""Chaos, briefly, on every face of both wires (``make chaos`` runs it for longer): one
client under faults, every reply checked against its own call. See dualio/lab/chaos.py.

The seed is new each run (``CHAOS_SEED`` fixes it) and is printed with any failure."""

from __future__ import annotations

import os
import random
import shutil

import pytest

from dualio.lab import chaos

SEED = int(os.environ.get("CHAOS_SEED", random.randrange(1 << 31)))
SECONDS = 2.0


@pytest.mark.parametrize("face", chaos.FACES)
@pytest.mark.parametrize("wire", chaos.WIRES)
def test_no_reply_reaches_another_caller_and_nothing_is_silent_or_escapes(wire: str, face: str) -> None:
    if wire == "redis" and shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    tally = chaos.run(wire, face, SECONDS, SEED)
    assert not tally.failed, f"{tally.line()} (CHAOS_SEED={SEED})\n" + "\n".join(tally.examples)
    assert tally.ok > 0, tally.line()
    if wire == "redis":
        assert tally.messages > 0 and tally.subscriptions > 0, tally.line()
