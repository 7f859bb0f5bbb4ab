"""The faces dualio ships are built on its public toolkit alone, as a protocol's author's
would be: an import scan of dualio's and Redis's faces finds no import of dualio's private
modules and no use of a private name of the toolkit's classes. And the shipped generator
(``python -m dualio.unasync``) does what docs/extending.md says."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from dualio import unasync
from dualio.toolkit import DualioError
from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
OWN = {
    "dualio/client.py": ("dualio.service_methods", "dualio_transports.dualio_protocol"),
    "dualio/service_methods.py": ("dualio_transports.dualio_protocol",),
    **{f"dualio/redis/{path.name}": ("dualio.redis", "dualio_transports.redis_protocol")
       for path in (ROOT / "dualio/redis").glob("*.py")},
    "examples/memcached/aio.py": ("examples.memcached",),
    "examples/memcached/protocol.py": ("examples.memcached",),
}
"""Each face's module, and the modules of its own it may import (its protocol's, its package's)."""
PUBLIC = ("dualio.toolkit",)
TOOLKIT_SOURCES = ("dualio/face_calls.py", "dualio/face_connection.py")


def private_names_of_the_toolkit() -> set[str]:
    """Every private method and attribute the toolkit's face classes define."""
    names: set[str] = set()
    for source in TOOLKIT_SOURCES:
        for node in ast.walk(ast.parse((ROOT / source).read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                names.add(node.attr)  # self._x, face._x
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def offences(source: str, own: tuple[str, ...], privates: set[str]) -> list[str]:
    """What ``source`` (a face's module) uses that is not public: imports of dualio's private
    modules, private names imported from outside its own modules, private names of the
    toolkit's classes."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                alias.name for alias in node.names
            ]
            for module in modules:
                top = module.split(".")[0]
                ours = module == top and top in {"dualio", "dualio_sync", "dualio_transports"}
                if top in sys.stdlib_module_names or top == "__future__":
                    continue
                if module in PUBLIC or module.startswith(own):
                    continue
                if top in {"dualio", "dualio_sync", "dualio_transports", "examples"} or ours:
                    found.append(f"line {node.lineno}: imports {module}")
            if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith(own):
                found += [f"line {node.lineno}: imports {alias.name}"
                          for alias in node.names if alias.name.startswith("_")]
        elif isinstance(node, ast.Attribute) and node.attr in privates:
            found.append(f"line {node.lineno}: uses {node.attr}")
    return found


@pytest.mark.parametrize("module", sorted(OWN))
def test_a_face_uses_the_public_toolkit_alone(module: str) -> None:
    privates = private_names_of_the_toolkit()
    assert offences((ROOT / module).read_text(), OWN[module], privates) == []


def test_the_scan_finds_what_it_looks_for() -> None:
    privates = private_names_of_the_toolkit()
    assert {"_held_call", "_ready_transport", "_life", "_conn", "_check_caller"} <= privates
    source = (
        "from dualio.face_calls import AsyncCalls\n"
        "from dualio_transports.wire.errors import ProtocolError\n"
        "import dualio_transports.policy.retry\n"
        "from dualio.toolkit import Request, _hidden\n"
        "class Face(AsyncCalls):\n"
        "    async def get(self):\n"
        "        return await self._held_call(None, 0.0)\n"
    )
    assert offences(source, ("dualio.redis",), privates) == [
        "line 1: imports dualio.face_calls",
        "line 2: imports dualio_transports.wire.errors",
        "line 3: imports dualio_transports.policy.retry",
        "line 4: imports _hidden",
        "line 7: uses _held_call",
    ]
    assert offences("from dualio.toolkit import AsyncFace, Request\nimport json\n", (), privates) == []


# -- the shipped generator --------------------------------------------------------------------

def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


SOURCE = '''"""A client of the ping protocol: ``async with AsyncPing() as p: await p.ping()``."""

from collections.abc import AsyncIterator

from dualio.toolkit import AsyncFace, Request


class AsyncPing(AsyncFace):
    async def twice(self) -> list[float]:
        return [await self.ping(), await self.ping()]

    async def __aenter__(self) -> "AsyncPing":
        return self

    def items(self) -> AsyncIterator[bytes]:
        raise NotImplementedError
'''


CONFIG = '[tool.dualio.unasync]\nfiles = {"aio.py" = "sync.py"}\nrules = [[\'\\bAsyncPing\\b\', "Ping"]]\n'


def test_the_generator_makes_the_blocking_face_from_the_config(tmp_path: Path) -> None:
    write(tmp_path, "aio.py", SOURCE)
    config = write(tmp_path, "unasync.toml", CONFIG)
    assert unasync.main(["--config", str(config), "--check"]) == 1  # not generated yet
    assert unasync.main(["--config", str(config)]) == 0
    generated = (tmp_path / "sync.py").read_text()
    assert generated.startswith('"""A client of the ping protocol: ``with Ping() as p: p.ping()``.')
    assert "GENERATED by python -m dualio.unasync" in generated
    assert "from dualio_sync.toolkit import Face, Request" in generated
    assert "class Ping(Face):" in generated and "def twice(self) -> list[float]:" in generated
    assert "return [self.ping(), self.ping()]" in generated and "def __enter__" in generated
    assert "Iterator[bytes]" in generated and "await" not in generated
    assert unasync.main(["--config", str(config), "--check"]) == 0
    (tmp_path / "sync.py").write_text(generated.replace("twice", "thrice"))
    assert unasync.main(["--config", str(config), "--check"]) == 1  # edited by hand


def test_the_generator_refuses_a_type_copied_into_both_faces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    write(tmp_path, "aio.py", SOURCE + "\n\nclass Item:\n    value: bytes\n")
    config = write(tmp_path, "unasync.toml", CONFIG)
    assert unasync.main(["--config", str(config)]) == 1
    assert "class Item comes out of the rules unchanged" in capsys.readouterr().err


def test_a_rule_that_matches_nothing_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    write(tmp_path, "aio.py", SOURCE)
    config = write(tmp_path, "unasync.toml", CONFIG.replace("AsyncPing", "AsyncNothing"))
    assert unasync.main(["--config", str(config)]) == 1
    assert "matched nothing" in capsys.readouterr().err


@pytest.mark.parametrize("table", [
    "", "[tool.dualio.unasync]\nfiles = {}\n", '[tool.dualio.unasync]\nfiles = {"a.py" = 3}\n',
    '[tool.dualio.unasync]\nfiles = {"a.py" = "b.py"}\nrules = [["(", "x"]]\n', "not toml [",
])
def test_a_bad_config_is_refused_with_the_reason(tmp_path: Path, table: str) -> None:
    config = write(tmp_path, "unasync.toml", table)
    with pytest.raises(SystemExit, match=str(config)):
        unasync.main(["--config", str(config)])


# -- the core, general --------------------------------------------------------------------------

def test_an_answer_the_server_sends_a_request_that_expected_none_reaches_no_later_call(
    server: ServerProcess,
) -> None:
    from dualio_sync import Client
    from dualio_transports.dualio_protocol import methods

    answers: list[bytes] = []
    # v1's server answers every request: its answer to the quiet one is a protocol error ...
    with Client(*server.address, timeout=5, retry=None) as client, pytest.raises(DualioError):
        for n in range(20):
            assert client.request(methods.echo(b"quiet %d" % n, 0.0)._replace(answers=0)) == b""
            answers.append(client.echo(b"loud %d" % n))
    assert answers == [b"loud %d" % n for n in range(len(answers))]  # ... and never another call's answer
