"""A call's deadline is made once, by the face, and no transport or driver makes one again.

The face turns a call's timeout into a deadline (``dualio_transports.wire.deadline``);
the transports and their drivers take it as it is, and put it on their own clock or
cut it into seconds for a socket's wait only through ``wire/``'s functions. This test
reads their sources: any arithmetic that makes a deadline from a timeout there fails it.
"""

from __future__ import annotations

import ast
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


# -- the walk of a call's deadline on the blocking face ------------------------------------

# Every function a blocking call runs through, from the face's request() to the socket's
# wait, by module; and of them, those that hold the call's deadline, and how.
WALK = {
    "dualio_sync/face_calls.py": {"request", "_attempts"},
    "transports/blocking/connection.py": {
        "call", "_send", "_write_locked", "_wait", "_lone_read", "_read_once", "_recv", "_wait_io",
        "_sleep", "perform", "step", "_drive",
    },
    "transports/wire/call_table.py": {"start", "__init__", "wait_end", "receive", "_route"},
    "transports/wire/frame_write.py": {"__init__", "wait_until", "expired"},
    "transports/wire/procedure.py": {"answer", "await_news", "give_up", "unsent"},
}
HOLDERS = {
    ("dualio_sync/face_calls.py", "request"): {"local"},
    ("dualio_sync/face_calls.py", "_attempts"): {"parameter"},
    ("transports/blocking/connection.py", "call"): {"parameter"},
    ("transports/wire/call_table.py", "start"): {"parameter"},
    ("transports/wire/call_table.py", "__init__"): {"parameter", "attribute"},  # CallState's
    ("transports/wire/frame_write.py", "__init__"): {"parameter", "attribute"},  # FrameWrite's
}


def holds(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """How ``function`` holds a deadline named ``until``: a parameter, a local, an attribute
    it sets, a return of it."""
    how = set()
    arguments = function.args
    if "until" in {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}:
        how.add("parameter")
    for node in ast.walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "until":
                how.add("local")
            elif isinstance(target, ast.Attribute) and target.attr == "until":
                how.add("attribute")
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id == "until":
            how.add("return")
    return how


def test_a_blocking_call_holds_its_deadline_in_six_places_named_until_and_returns_it_nowhere() -> None:
    """The face makes the deadline once; the transport hands it to the table, which keeps
    it on the call; a write that waits keeps it on its FrameWrite. Every other function of
    the walk reads it from the call, or takes only the end of one wait (``wake``)."""
    found: dict[tuple[str, str], set[str]] = {}
    for module, names in WALK.items():
        tree = ast.parse((ROOT / module).read_text())
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        assert names <= {f.name for f in functions}, f"{module}: the walk names a function it lacks"
        for function in functions:
            if function.name in names and holds(function):
                found.setdefault((module, function.name), set()).update(holds(function))
    assert found == HOLDERS
    # A place per function; a constructor's parameter that only sets the attribute of its
    # name counts with that attribute.
    assert len(found) == 6
    assert not any("return" in how for how in found.values())


def test_the_walk_check_finds_a_deadline_passed_on() -> None:
    planted = ast.parse("def _send(self, data, until):\n    return until\n").body[0]
    assert isinstance(planted, ast.FunctionDef)
    assert holds(planted) == {"parameter", "return"}
