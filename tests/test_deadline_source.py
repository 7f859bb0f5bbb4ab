"""A call's deadline is made once, by the face, and no transport or driver makes one again.

The face turns a call's timeout into a deadline (``dualio_transports.wire.deadline``);
the transports and their drivers take it as it is, and put it on their own clock or
cut it into seconds for a socket's wait only through ``wire/``'s functions. This test
reads their sources: any arithmetic that makes a deadline from a timeout there fails it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TRANSPORTS = ROOT / "transports"

# Where a deadline may be made: the wire (deadline.py, timing.py, the procedure) and the
# face's policy (the connect attempt's deadline, the retry series).
ALLOWED = ("wire", "policy")

FORBIDDEN = {
    "a deadline made from a timeout": re.compile(r"(?<![\w.])(?<!def )deadline\(|calls\.deadline\("),
    "a clock plus seconds": re.compile(r"(monotonic|clock|current_time|\btime)\(\)\s*\+"),
    "seconds added to a time": re.compile(r"\+\s*(timeout|seconds|left|wait|slack)\b", re.IGNORECASE),
    "a relative timer of anyio": re.compile(r"\b(fail_after|move_on_after)\("),
    "a relative timer of asyncio": re.compile(
        r"asyncio\.timeout\(|call_later\((?!CLOSE_GRACE|timing\.WRITE_STALL_LIMIT)"
    ),
    "time left as a new timeout": re.compile(r"\b(timeout_left|remaining)\("),
}


def sources() -> list[Path]:
    return sorted(
        path for path in TRANSPORTS.rglob("*.py")
        if path.relative_to(TRANSPORTS).parts[0] not in ALLOWED
    )


def offences(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        for what, pattern in FORBIDDEN.items():
            if pattern.search(code):
                found.append(f"{number}: {what}: {line.strip()}")
    return found


def test_no_transport_or_driver_makes_a_deadline_from_a_timeout() -> None:
    checked = sources()
    assert len(checked) > 15 and any(p.name == "async_driver.py" for p in checked)
    found = {str(p.relative_to(ROOT)): offences(p.read_text()) for p in checked}
    assert not {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("planted", [
    "until = deadline(timeout)",
    "until = calls.deadline(timeout)",
    "when = self._clock() + timeout",
    "when = loop.time() + wait",
    "with anyio.fail_after(timeout):",
    "async with asyncio.timeout(timeout):",
    "timer = loop.call_later(timeout, expiry)",
    "left = timeout_left(until)",
])
def test_the_check_finds_a_deadline_made_again(planted: str) -> None:
    assert offences(f"def f():\n    {planted}\n")
