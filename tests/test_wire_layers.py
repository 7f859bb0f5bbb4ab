"""The core's modules in layers: wire/ imports form no circle (TYPE_CHECKING imports
counted), errors sit at the bottom, and one walk follows an error's causes."""

from __future__ import annotations

import ast
from pathlib import Path

from dualio_transports.wire.errors import ConnectionLost, ConnectTimeout, RetriesExhausted, causes

WIRE = Path(__file__).resolve().parents[1] / "transports" / "wire"
PACKAGE = "dualio_transports.wire"


def _imports(path: Path) -> set[str]:
    """The wire modules ``path`` imports, anywhere in it (functions and TYPE_CHECKING too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == PACKAGE:
                found |= {alias.name for alias in node.names}
            elif node.module.startswith(PACKAGE + "."):
                found.add(node.module.removeprefix(PACKAGE + "."))
        elif isinstance(node, ast.Import):
            names = (alias.name for alias in node.names)
            found |= {name.removeprefix(PACKAGE + ".") for name in names if name.startswith(PACKAGE + ".")}
    return found - {path.stem}


def _graph() -> dict[str, set[str]]:
    return {path.stem: _imports(path) for path in sorted(WIRE.glob("*.py")) if path.stem != "__init__"}


def test_wire_imports_form_no_circle() -> None:
    graph = _graph()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError("import circle: " + " -> ".join([*path[path.index(module):], module]))
        if module in done:
            return
        for imported in sorted(graph.get(module, ())):
            visit(imported, [*path, module])
        done.add(module)

    for module in graph:
        visit(module, [])
    assert "call_table" in done and "procedure" in done  # the walk saw the core


def test_errors_are_at_the_bottom() -> None:
    assert _graph()["errors"] == set()
    assert _graph()["failures"] <= {"errors", "timing", "deadline"}


def test_causes_walks_each_link_once_outermost_first() -> None:
    refused = ConnectionRefusedError(111, "refused")
    timeout = ConnectTimeout("connecting timed out")
    timeout.__cause__ = refused
    exhausted = RetriesExhausted("gave up", 2, [ConnectionLost("lost"), timeout])
    assert causes(exhausted) == [exhausted, timeout, refused]  # the last try's error, then its cause
    looped = ConnectionLost("a")
    other = ConnectionLost("b")
    looped.__cause__, other.__cause__ = other, looped
    assert causes(looped) == [looped, other]
    assert causes(None) == []
