"""``dualio bench compare OLD NEW``: regressions beyond noise fail, noise and bad input do not."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dualio.cli import main
from dualio.lab.bench.command import SLOWDOWN_VARIABLE
from dualio.lab.common.metadata import SCHEMA_VERSION

MACHINE = {"cpu_model": "Test CPU", "logical_cpus": 2, "arch": "x86_64"}


def cell(scenario: str, mode: str, metric: str, median: float, low: float, high: float,
         case: str = "sequential") -> dict[str, Any]:
    return {"scenario": scenario, "case": case, "mode": mode, "server": "async", "skipped": False,
            metric: median, "interval": {metric: [low, high]}}


def document(*cells: dict[str, Any], machine: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "meta": {"machine": machine or MACHINE, "partial": False},
            "goals": [], "cells": list(cells)}


def write(path: Path, data: Any) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def compare(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["bench", "compare", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


BASE = document(cell("throughput", "sync", "ops_per_s", 10_000, 9_800, 10_200),
                cell("fanout", "native-asyncio", "wall_s", 0.110, 0.108, 0.112, case="N=1000"))


@pytest.mark.parametrize(("ops", "wall", "code"), [
    ((8_000, 7_900, 8_100), (0.110, 0.108, 0.112), 1),  # ops/s -20%, beyond noise: regression
    ((9_500, 9_400, 9_600), (0.110, 0.108, 0.112), 0),  # -5%, beyond noise but under 10%
    ((8_000, 7_000, 9_900), (0.110, 0.108, 0.112), 0),  # -20% but within the old run's noise
    ((12_000, 11_900, 12_100), (0.110, 0.108, 0.112), 0),  # faster
    ((10_000, 9_800, 10_200), (0.150, 0.149, 0.151), 1),  # fan-out wall +36%: lower is better
    ((10_000, 9_800, 10_200), (0.080, 0.079, 0.081), 0),  # fan-out wall -27%: better
])
def test_regressions_need_noise_and_threshold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        ops: tuple[float, float, float], wall: tuple[float, float, float], code: int) -> None:
    new = document(cell("throughput", "sync", "ops_per_s", *ops),
                   cell("fanout", "native-asyncio", "wall_s", *wall, case="N=1000"))
    result, out, err = compare(write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", new),
                               capsys=capsys)
    assert result == code, out
    assert ("REGRESSION" in out) == bool(code)
    assert err == ""
    assert max(len(line) for line in out.splitlines() if str(tmp_path) not in line) <= 100


def test_a_cell_that_loses_calls_is_a_regression_whatever_its_speed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    faster = {**cell("throughput", "sync", "ops_per_s", 12_000, 11_900, 12_100), "errors": 2, "wrong": 0}
    new = document(faster, BASE["cells"][1])
    code, out, _ = compare(write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", new),
                           capsys=capsys)
    assert code == 1
    assert "LOST OR MISROUTED CALLS in NEW: throughput sequential sync async (errors 2, wrong 0)" in out
    unchanged = document({**faster}, BASE["cells"][1])  # the same failure in both: not new
    code, _, _ = compare(write(tmp_path / "a.json", unchanged), write(tmp_path / "b.json", unchanged),
                         capsys=capsys)
    assert code == 0


def test_a_file_without_meta_is_compared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bare = {key: value for key, value in BASE.items() if key != "meta"}
    code, _, err = compare(write(tmp_path / "a.json", BASE), write(tmp_path / "b.json", bare),
                           capsys=capsys)
    assert code == 0 and "Traceback" not in err


def test_the_threshold_is_a_percentage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = document(cell("throughput", "sync", "ops_per_s", 8_000, 7_900, 8_100))
    paths = write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", new)
    assert compare(*paths, "--fail-above", "25%", capsys=capsys)[0] == 0
    assert compare(*paths, "--fail-above", "15", capsys=capsys)[0] == 1


def test_cells_in_one_run_only_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = document(BASE["cells"][0], cell("blob", "sync", "ops_per_s", 5, 4, 6, case="40×1MiB c=20"))
    code, out, _ = compare(write(tmp_path / "a.json", BASE), write(tmp_path / "b.json", new), capsys=capsys)
    assert code == 0
    assert "1 cells only in OLD: fanout N=1000 native-asyncio (async)" in out
    assert "1 cells only in NEW: blob" in out


def test_another_machine_is_one_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = copy.deepcopy(BASE)
    other["meta"]["machine"] = {"cpu_model": "Other CPU", "logical_cpus": 8, "arch": "x86_64"}
    code, _, err = compare(write(tmp_path / "a.json", BASE), write(tmp_path / "b.json", other),
                           capsys=capsys)
    assert code == 0
    assert err.count("\n") == 1 and "warning: the runs are from different machines" in err


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    ("{not json", "is not valid JSON (line 1"),
    ('{"cells": []}', "has no schema_version"),
    ("[1, 2]", "has no schema_version"),
    (json.dumps({**BASE, "schema_version": 1}), "has schema_version 1; this dualio reads"),
    (json.dumps({**BASE, "schema_version": "2"}), "has schema_version '2'"),
    (json.dumps({**BASE, "cells": [{"scenario": "x"}]}), "has no well-formed cells list"),
    (b"\xff\xfe\x00".decode("latin-1"), "is not valid JSON"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, content: str | None, message: str) -> None:
    good = write(tmp_path / "good.json", BASE)
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    for args in ([good, str(bad)], [str(bad), good]):
        run = subprocess.run([sys.executable, "-m", "dualio", "bench", "compare", *args],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2, run.stdout + run.stderr
        assert message in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


@pytest.mark.parametrize("limit", ["ten", "-5%"])
def test_a_bad_threshold_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: str) -> None:
    path = write(tmp_path / "a.json", BASE)
    code, _, err = compare(path, path, f"--fail-above={limit}", capsys=capsys)
    assert code == 2 and "--fail-above must be" in err and err.count("\n") == 1


def _run(out: Path, slowdown: str | None = None) -> Path:
    """A tiny real bench: 40 sequential calls that each wait 10 ms on the server, three rounds."""
    env = {k: v for k, v in os.environ.items() if k != SLOWDOWN_VARIABLE}
    if slowdown is not None:
        env[SLOWDOWN_VARIABLE] = slowdown
    out.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "dualio", "bench", "--scenario", "fanout", "--ns", "40", "--delay", "0.01",
         "--modes", "sync", "--repeat", "3", "--out", str(out)],
        capture_output=True, text=True, timeout=120, cwd=out, env=env)
    assert run.returncode == 0, run.stderr
    [results] = out.glob("bench-*/results.json")
    return results


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Two runs of the same build, and one with every SDK call slowed by 20 ms."""
    base = tmp_path_factory.mktemp("compare")
    return _run(base / "a"), _run(base / "b"), _run(base / "slowed", "0.02")


def test_the_same_build_twice_passes(three_runs: tuple[Path, Path, Path],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    first, second, _ = three_runs
    code, out, _ = compare(str(first), str(second), "--fail-above", "50%", capsys=capsys)
    assert code == 0, out
    assert "fanout N=40 sync (async)" in out
    assert "no cell regressed" in out


def test_a_slowed_run_is_flagged(three_runs: tuple[Path, Path, Path],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    first, _, slowed = three_runs
    assert json.loads(slowed.read_text())["meta"]["slowdown_s"] == 0.02
    code, out, _ = compare(str(first), str(slowed), "--fail-above", "50%", capsys=capsys)
    assert code == 1, out
    [line] = [line for line in out.splitlines() if line.startswith("fanout N=40 sync")]
    assert line.endswith("REGRESSION")
    code, out, _ = compare(str(slowed), str(first), "--fail-above", "50%", capsys=capsys)
    assert code == 0, out  # the other way round it is an improvement
    assert "better" in out
