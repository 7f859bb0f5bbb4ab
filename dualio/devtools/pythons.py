"""The suite on every Python the package claims besides the one ``make test`` runs on.

    python -m dualio.devtools.pythons [--versions 3.12,3.13] [--list]
    python -m dualio.devtools.pythons --lab [--out FOLDER]

For each version it finds an interpreter (pyenv's versions folder, then ``pythonX.Y`` on
the PATH that really is that version: pyenv's shim refuses to run unless a version is
selected), keeps a virtualenv of it in ``.venv-X.Y`` with the package and its test extra
installed (made again when pyproject.toml changes), and runs there the suites the package's
claim rests on (``SUITES``): the contract suite, the fork tests, the unit tests and the
Redis tests, each Python's in xdist workers of its own and the Pythons at once, each one's output in
``build/pythons/X.Y.log``. ``make test-pythons`` runs it, and CI after ``make test``; it is
not part of ``make test``, which stays within 8 minutes on 2 cores (docs/results.md says
what the two Pythons add).

A version with no interpreter is reported SKIPPED with where it was looked for, and so is
never a silent pass; a failed install or test run fails the command.

``--lab`` runs the quick lab's goal scenarios instead (``LAB_SCENARIOS``), on this Python
and on each one found (their virtualenvs get the lab extra too), one after the other, and
writes one table, the goals side by side with a column saying whether a verdict changed;
beside them, on 3.12 and newer, native fan-out with asyncio's eager task factory against
the default one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ("3.12", "3.13")
"""Claimed besides 3.11 (pyproject.toml's classifiers list the three)."""
SUITES = (
    "tests/contract", "tests/test_fork.py",
    "tests/test_call_table.py", "tests/test_codec.py", "tests/test_deadlines.py",
    "tests/test_emulation_primitives.py", "tests/test_error_copies.py", "tests/test_frame_write.py",
    "tests/test_lifecycle.py", "tests/test_procedure.py", "tests/test_retry_policy.py",
    "tests/test_running_loop.py", "tests/test_state_machines.py", "tests/test_surface.py",
    "tests/test_telemetry.py", "tests/test_resp.py", "tests/test_redis_protocol.py",
    "tests/test_redis_faces.py", "tests/test_redis_contract.py", "tests/test_redis_bad_input.py",
)
"""The contract suite (every transport, the fault matrix included), the fork tests, the
unit tests and the Redis faces' tests: what the package's claim to a Python rests on. The
main Python runs the rest too (the server's own tests, the lab, the docs, the examples,
the wheel, perf, stress)."""


@dataclass(frozen=True)
class Found:
    version: str
    python: Path | None
    looked: tuple[str, ...]  # where, when nothing was found


def _reports(python: Path, version: str) -> bool:
    try:
        out = subprocess.run([str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.strip() == version


def find(version: str) -> Found:
    looked: list[str] = []
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = sorted((pyenv_root / "versions").glob(f"{version}.*/bin/python{version}"), reverse=True)
    looked.append(f"{pyenv_root}/versions/{version}.*")
    on_path = shutil.which(f"python{version}")
    looked.append(f"python{version} on the PATH")
    if on_path is not None:
        candidates.append(Path(on_path))
    for python in candidates:
        if _reports(python, version):
            return Found(version, python, ())
    return Found(version, None, tuple(looked))


def _venv(found: Found, extras: str = "test", log: IO[str] | None = None) -> Path:
    """The version's virtualenv with the package and ``extras`` installed (again when
    pyproject.toml changed since)."""
    assert found.python is not None
    venv = ROOT / f".venv-{found.version}"
    stamp = venv / f".installed-{extras.replace(',', '-')}"
    if stamp.exists() and stamp.stat().st_mtime >= (ROOT / "pyproject.toml").stat().st_mtime:
        return venv
    err = subprocess.STDOUT if log is not None else None
    if not (venv / "bin" / "python").exists():
        subprocess.run([str(found.python), "-m", "venv", str(venv)], check=True, stdout=log, stderr=err)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-e", f"{ROOT}[{extras}]"], check=True, cwd=ROOT, stdout=log, stderr=err)
    stamp.touch()
    return venv


def _pytest(python: Path | str, workers: int, paths: Sequence[str], extra: Sequence[str]) -> list[str]:
    return [str(python), "-m", "pytest", "-q", "-n", str(workers), "--dist", "loadscope",
            "-m", "not serial", "-p", "no:cacheprovider", *paths, *extra]


@dataclass
class SuiteRun:
    """One Python's suites, run in the background into a log of their own."""

    found: Found
    workers: int
    extra: Sequence[str]
    log_path: Path = field(init=False)
    code: int | None = None
    thread: threading.Thread | None = None
    process: subprocess.Popen[bytes] | None = None
    stopped: bool = False

    def __post_init__(self) -> None:
        self.log_path = LOGS / f"{self.found.version}.log"

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name=f"python-{self.found.version}")
        self.thread.start()

    def _run(self) -> None:
        with self.log_path.open("w") as log:
            try:
                with _INSTALLING:
                    venv = _venv(self.found, log=log)
                command = _pytest(venv / "bin" / "python", self.workers, SUITES, self.extra)
                log.write(f"== Python {self.found.version}: {' '.join(command[1:])}\n")
                log.flush()
                with _STARTING:
                    if self.stopped:
                        return
                    self.process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
                self.code = self.process.wait()
            except Exception:
                log.write(f"\n{traceback.format_exc()}")
                self.code = 1

    def stop(self) -> None:
        """End the suite's pytest (Ctrl-C in the command that started it), or keep it from starting."""
        with _STARTING:
            self.stopped = True
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()

    def wait(self) -> int:
        assert self.thread is not None
        self.thread.join()
        return 1 if self.code is None else self.code

    def last_line(self) -> str:
        lines = self.log_path.read_text().strip().splitlines() if self.log_path.exists() else []
        return lines[-1] if lines else "(no output)"


_INSTALLING = threading.Lock()
"""One pip at a time: each writes the package's egg-info into the repository."""
_STARTING = threading.Lock()
"""A suite's pytest starts, or is told to stop, one at a time."""
LOGS = ROOT / "build" / "pythons"
WORKERS = 3


def _skipped(found: Found) -> str:
    return f"SKIPPED Python {found.version}: no interpreter (looked in {', '.join(found.looked)})"


def run(found: list[Found], extra: Sequence[str]) -> int:
    """``SUITES`` on each Python found, all at once: the tests mostly wait (on timeouts, on
    servers), so two Pythons share two cores well. Each one's output goes to
    ``build/pythons/X.Y.log``, and is shown when it failed."""
    LOGS.mkdir(parents=True, exist_ok=True)
    runs: list[SuiteRun] = []
    summary: list[str] = []
    for each in found:
        if each.python is None:
            summary.append(_skipped(each))
            continue
        suite = SuiteRun(each, WORKERS, extra)
        print(f"== Python {each.version} ({each.python}): the contract, fork and unit tests, "
              f"output in {suite.log_path}", flush=True)
        suite.start()
        runs.append(suite)
    try:
        for suite in runs:
            suite.wait()
    except KeyboardInterrupt:
        for suite in runs:
            suite.stop()
        raise
    failed = False
    for suite in runs:
        code = suite.wait()
        if code != 0:
            failed = True
            print(f"== Python {suite.found.version}, {suite.log_path}:", flush=True)
            print(suite.log_path.read_text() if suite.log_path.exists() else "(no log)", flush=True)
        summary.append(f"{'passed ' if code == 0 else 'FAILED '} Python {suite.found.version}: "
                       f"{suite.last_line()}")
    print("\n".join(summary), flush=True)
    return 1 if failed else 0


LAB_SCENARIOS = "fanout,throughput,overhead,setup,server,blob"
"""The quick lab's scenarios that its goals are judged on."""
EAGER, DEFAULT = "native-asyncio-eager", "native-asyncio"


def _lab_run(python: Path, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    command = [str(python), "-m", "dualio", "bench", "--quick", "--scenario", LAB_SCENARIOS,
               "--out", str(out)]
    print(f"== {' '.join(command)}", flush=True)
    subprocess.run(command, cwd=ROOT, check=True)
    return _read(out)


def _verdict(goal: dict[str, Any]) -> str:
    if goal["median"] is None:
        return str(goal["verdict"])
    return f"{goal['verdict']} {goal['median']:.3g} [{goal['low']:.3g}, {goal['high']:.3g}]"


def _eager(cells: list[dict[str, Any]], scenario: str, metric: str) -> str:
    """The eager task factory's ``metric`` over the default one's, in the scenario's case
    with the most calls that both measured."""
    measured = {(c["case"], c["mode"]): c for c in cells
                if c["scenario"] == scenario and not c["skipped"] and c[metric]}
    cases = [case for case, mode in measured if mode == EAGER and (case, DEFAULT) in measured]
    if not cases:
        return "not measured (Python 3.12 and newer)"
    case = max(cases, key=lambda case: measured[case, EAGER]["total"])
    ratio = measured[case, EAGER][metric] / measured[case, DEFAULT][metric]
    return f"{ratio:.3g} ({case})"


def _target(goal: dict[str, Any]) -> str:
    if goal["target_high"] is not None:
        return f"within [{goal['target']:g}, {goal['target_high']:g}]"
    return f"{'≥' if goal['direction'] == 'at least' else '≤'} {goal['target']:g}{goal['unit']}"


def lab_table(runs: dict[str, dict[str, Any]]) -> str:
    """The goals of each run side by side, and whether any verdict differs between them."""
    versions = list(runs)
    goals = [goal["name"] for goal in runs[versions[0]]["goals"]]
    lines = ["| goal | target | " + " | ".join(f"Python {v}" for v in versions) + " | verdict changes |",
             "|---|---|" + "---|" * len(versions) + "---|"]
    for name in goals:
        row = {v: next(g for g in runs[v]["goals"] if g["name"] == name) for v in versions}
        target = _target(row[versions[0]])
        verdicts = {row[v]["verdict"] for v in versions if row[v]["verdict"] != "not measured"}
        lines.append(f"| {name} | {target} | " + " | ".join(_verdict(row[v]) for v in versions)
                     + f" | {'yes' if len(verdicts) > 1 else 'no'} |")
    for what, scenario, metric in (("fan-out wall", "fanout", "wall_s"),
                                   ("calls per second", "throughput", "ops_per_s")):
        lines.append(f"| native-asyncio, eager task factory / default: {what} | — | "
                     + " | ".join(_eager(runs[v]["cells"], scenario, metric) for v in versions) + " | — |")
    commits = {runs[v]["meta"]["git_commit"] for v in versions}
    lines.append("")
    lines.append(f"Commit {', '.join(sorted(c or '?' for c in commits))}; each column one quick run "
                 f"(`dualio bench --quick --scenario {LAB_SCENARIOS}`), one after the other.")
    return "\n".join(lines)


def _read(out: Path) -> dict[str, Any]:
    (results,) = out.glob("bench-*/results.json")
    data: dict[str, Any] = json.loads(results.read_text())
    return data


def lab(found: list[Found], out: Path) -> int:
    major, minor = sys.version_info[:2]
    pythons: dict[str, Path] = {f"{major}.{minor}": Path(sys.executable)}
    for each in found:
        if each.python is None:
            print(_skipped(each))
        else:
            pythons[each.version] = _venv(each, "test,lab") / "bin" / "python"
    runs = {version: _lab_run(python, out / version) for version, python in pythons.items()}
    table = lab_table(runs)
    (out / "pythons.md").write_text(table + "\n")
    print(table)
    print(f"written to {out / 'pythons.md'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dualio.devtools.pythons",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--versions", default=",".join(VERSIONS), help="comma-separated, e.g. 3.12,3.13")
    parser.add_argument("--list", action="store_true", help="say which interpreters are found, run nothing")
    parser.add_argument("--lab", action="store_true",
                        help="the quick lab's goals on each Python, side by side")
    parser.add_argument("--out", type=Path, default=None,
                        help="--lab's folder (default results/pythons-TIME)")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest (after --)")
    args = parser.parse_args(argv)
    found = [find(v) for v in args.versions.split(",") if v]
    if args.lab:
        return lab(found, args.out or ROOT / "results" / time.strftime("pythons-%Y%m%d-%H%M%S"))
    if args.list:
        for each in found:
            print(_skipped(each) if each.python is None else f"found   Python {each.version}: {each.python}")
        return 0
    return run(found, args.pytest_args)


if __name__ == "__main__":
    sys.exit(main())
