"""``python -m dualio.devtools.pythons``: the suites on the other Pythons. A missing
interpreter is reported SKIPPED with where it was looked for, never a silent pass; a
failed run fails the command and shows its output. The suites themselves are replaced
here by a stand-in interpreter (``make test-pythons`` runs the real ones)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from dualio.devtools import pythons
from dualio.devtools.pythons import Found


def test_a_version_nobody_installed_is_not_found_and_says_where_it_looked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    found = pythons.find("3.99")
    assert found.python is None
    assert found.looked == (f"{tmp_path}/versions/3.99.*", "python3.99 on the PATH")


def test_an_interpreter_that_reports_another_version_is_not_taken(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """pyenv's shim answers to python3.X and may run another Python: each candidate must
    say it is that version."""
    fake = tmp_path / "versions" / "3.98.0" / "bin" / "python3.98"
    fake.parent.mkdir(parents=True)
    fake.symlink_to(sys.executable)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    assert pythons.find("3.98").python is None
    mine = f"{sys.version_info.major}.{sys.version_info.minor}"
    mine_fake = tmp_path / "versions" / f"{mine}.0" / "bin" / f"python{mine}"
    mine_fake.parent.mkdir(parents=True)
    mine_fake.symlink_to(sys.executable)
    assert pythons.find(mine).python == mine_fake


def _stand_in(tmp_path: Path, version: str, output: str, code: int) -> Found:
    """A Found whose virtualenv's python prints ``output`` and exits with ``code``."""
    python = tmp_path / f"venv-{version}" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\necho '{output}'\nexit {code}\n")
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    return Found(version, Path("/usr/bin/false"), ())


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(pythons, "LOGS", tmp_path / "logs")
    monkeypatch.setattr(pythons, "_venv", lambda found, log=None: tmp_path / f"venv-{found.version}")
    return tmp_path


def test_a_missing_interpreter_is_skipped_with_its_reason_and_the_others_still_run(
    stand_ins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = Found("3.99", None, ("/nowhere/versions/3.99.*", "python3.99 on the PATH"))
    present = _stand_in(stand_ins, "3.98", "7 passed in 0.01s", 0)
    assert pythons.run([missing, present], []) == 0
    out = capsys.readouterr().out
    assert ("SKIPPED Python 3.99: no interpreter (looked in /nowhere/versions/3.99.*, "
            "python3.99 on the PATH)") in out
    assert "passed  Python 3.98: 7 passed in 0.01s" in out
    assert (stand_ins / "logs" / "3.98.log").read_text().endswith("7 passed in 0.01s\n")


def test_a_failed_run_fails_the_command_and_shows_its_output(
    stand_ins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = _stand_in(stand_ins, "3.97", "FAILED tests/x.py::test_y - boom", 1)
    passing = _stand_in(stand_ins, "3.96", "3 passed in 0.01s", 0)
    assert pythons.run([failing, passing], []) == 1
    out = capsys.readouterr().out
    assert "FAILED  Python 3.97: FAILED tests/x.py::test_y - boom" in out
    assert f"== Python 3.97, {stand_ins / 'logs' / '3.97.log'}:" in out
    assert "passed  Python 3.96: 3 passed in 0.01s" in out


def test_a_failed_install_fails_the_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def cannot_install(found: Found, log: object = None) -> Path:
        raise OSError("no space left on device")

    monkeypatch.setattr(pythons, "LOGS", tmp_path / "logs")
    monkeypatch.setattr(pythons, "_venv", cannot_install)
    assert pythons.run([Found("3.95", Path("/usr/bin/false"), ())], []) == 1
    assert "FAILED  Python 3.95: OSError: no space left on device" in capsys.readouterr().out


def test_a_stopped_suite_ends_its_pytest(stand_ins: Path) -> None:
    """Ctrl-C in the command stops every suite's pytest, not only the command."""
    import time

    slow = _stand_in(stand_ins, "3.94", "started", 0)
    python = stand_ins / "venv-3.94" / "bin" / "python"
    python.write_text("#!/bin/sh\necho started\nexec sleep 30\n")
    (stand_ins / "logs").mkdir()
    suite = pythons.SuiteRun(slow, 1, [])
    suite.start()
    until = time.monotonic() + 10
    while suite.process is None and time.monotonic() < until:
        time.sleep(0.01)
    assert suite.process is not None, suite.last_line()
    started = time.monotonic()
    suite.stop()
    assert suite.wait() != 0
    assert time.monotonic() - started < 10


def test_list_names_each_version_found_or_skipped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert pythons.main(["--versions", "3.99", "--list"]) == 0
    assert capsys.readouterr().out.startswith("SKIPPED Python 3.99: no interpreter (looked in ")
