"""The layers stay apart, and the generated blocking face stays in step with its source."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dualio.devtools import unasync

ROOT = Path(__file__).resolve().parent.parent


def test_the_blocking_face_loads_no_event_loop_library() -> None:
    probe = ("import sys, dualio_sync, dualio_sync.redis; "
             "print(sorted({'asyncio', 'anyio', 'trio'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def _loaded(modules: str, allowed: tuple[str, ...]) -> list[str]:
    """The dualio_transports modules that importing ``modules`` loads outside ``allowed``."""
    probe = (
        f"import sys, {modules}; "
        "print(sorted(m for m in sys.modules if m.startswith('dualio_transports.') and "
        f"not m.startswith({allowed!r})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return list(eval(out.stdout))  # a list of names, printed by the probe


def test_the_core_imports_no_protocol_and_no_transport() -> None:
    """The call table, the procedure and the transports' interface know a protocol only
    through the wire interface (wire/protocol.py)."""
    core = ("dualio_transports.wire.call_table, dualio_transports.wire.procedure, "
            "dualio_transports.wire.protocol, dualio_transports.interface")
    assert _loaded(core, ("dualio_transports.wire", "dualio_transports.interface")) == []


def test_protocol_v1_imports_only_the_core() -> None:
    v1 = ("dualio_transports.dualio_protocol.client_protocol, "
          "dualio_transports.dualio_protocol.server_protocol, dualio_transports.dualio_protocol.methods")
    assert _loaded(v1, ("dualio_transports.wire", "dualio_transports.dualio_protocol")) == []


def test_the_client_policy_imports_only_the_wire_and_the_protocol() -> None:
    policy = ("dualio_transports.policy.lifecycle, dualio_transports.policy.url, "
              "dualio_transports.policy.connect_options, dualio_transports.policy.timeouts")
    allowed = ("dualio_transports.wire", "dualio_transports.dualio_protocol", "dualio_transports.policy")
    assert _loaded(policy, allowed) == []


def test_nothing_imports_the_folder_by_its_name() -> None:
    """transports/ is imported as dualio_transports only: from the repository's root the
    folder's own name would import too (and then fail once installed from the wheel)."""
    probe = (
        "import sys, pkgutil, importlib, dualio, dualio_sync, dualio_transports\n"
        "for package in (dualio, dualio_sync, dualio_transports):\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        if '.devtools' not in info.name and not info.name.endswith(('.locust', '.__main__')):\n"
        "            importlib.import_module(info.name)\n"
        "print(len(sys.modules), sorted(m for m in sys.modules if m.split('.')[0] == 'transports'))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded, stray = out.stdout.split(" ", 1)
    assert int(loaded) > 100
    assert stray.strip() == "[]"


def test_no_source_names_the_folder_as_a_module() -> None:
    """The same, read from the sources (a module the probe above cannot import, such as
    dualio.locust without Locust, is read here): no import of ``transports`` and no
    dotted ``transports.`` module name in a string (a monkeypatch target, say)."""
    import ast

    folder = "transports"
    dotted = folder + "."  # not written as one literal here, which the check would find
    offenders = []
    for path in sorted(ROOT.glob("**/*.py")):
        if any(part.startswith(".") or part in ("build", "results") for part in path.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names = [node.value] if node.value.startswith(dotted) else []
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno}: {name}" for name in names
                          if name == folder or name.startswith(dotted)]
    assert offenders == []


def copy_of_the_faces(tmp_path: Path) -> Path:
    for source, (target, _) in unasync.FILES.items():
        for path in (source, target):
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / path, tmp_path / path)
    return tmp_path


def test_generated_face_is_up_to_date() -> None:
    assert unasync.main(["--check"]) == 0


def test_check_fails_when_the_generated_face_is_edited_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_of_the_faces(tmp_path)
    generated = root / "dualio_sync/service_methods.py"
    generated.write_text(generated.read_text().replace('"""``data`` back', '"""The data back'))
    assert unasync.main(["--check", "--root", str(root)]) == 1
    assert "differs from what dualio/service_methods.py generates" in capsys.readouterr().err
    assert unasync.main(["--root", str(root)]) == 0  # regenerating mends it
    assert unasync.main(["--check", "--root", str(root)]) == 0


def test_check_fails_when_the_source_is_edited_without_regenerating(tmp_path: Path) -> None:
    root = copy_of_the_faces(tmp_path)
    source = root / "dualio/service_methods.py"
    source.write_text(source.read_text().replace("The server's counters.", "The server's counters!"))
    assert unasync.main(["--check", "--root", str(root)]) == 1


def test_check_fails_on_a_substitution_that_matches_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    nothing = (r"\bAsyncNothing\b", "X")
    monkeypatch.setattr(unasync, "OWN_RULES", [*unasync.OWN_RULES, nothing])
    monkeypatch.setattr(unasync, "RULES", [*unasync.RULES, nothing])
    assert unasync.main(["--check"]) == 1
    assert "the rule '\\\\bAsyncNothing\\\\b' matched nothing in any source" in capsys.readouterr().err


def test_check_fails_when_the_generated_driver_is_edited_by_hand(tmp_path: Path) -> None:
    root = copy_of_the_faces(tmp_path)
    generated = root / "transports/blocking/driver.py"
    generated.write_text(generated.read_text().replace("error = procedure.Left()", "pass"))
    assert unasync.main(["--check", "--root", str(root)]) == 1
