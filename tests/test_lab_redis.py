"""The lab's Redis scenario: its cells against a real redis-server, its models and goals,
and what it does with a server missing, too old, dead, or a client that hangs."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from dualio.lab.bench import redis_clients, redis_scenario
from dualio.lab.bench.goals import evaluate
from dualio.lab.bench.redis_clients import Opening, RedisMode, redis_modes
from dualio.lab.bench.redis_scenario import RedisLab, redis_jobs
from dualio.lab.bench.redis_storm import storm
from dualio.lab.bench.results import Cell
from dualio.lab.bench.scenarios import Plan
from dualio.lab.bench.server_process import MAX_RESTARTS
from dualio.lab.bench.workloads import Workload
from dualio.lab.common.redis_server import NOT_INSTALLED, RedisServer, unavailable

MISSING = unavailable()
needs_redis = pytest.mark.skipif(bool(MISSING), reason=MISSING)

TINY = dataclasses.replace(
    Plan.quick(), fanout_ns=(10, 40), fanout_delay=0.05, sequential_calls=100, concurrent_calls=500,
    setup_calls=40, storm_calls=100, thread_connect_cap=20, budget_s=0.2,
)
MODES = {mode.name: mode for mode in redis_modes()}


def _modes(*names: str) -> list[RedisMode]:
    return [MODES[name] for name in names if not MODES[name].missing()]


def test_every_cell_is_skipped_with_the_reason_when_redis_server_cannot_run() -> None:
    made = redis_jobs(TINY, redis_modes(), NOT_INSTALLED)
    assert made and all(job.cell.skipped for job in made)
    assert {job.cell.note for job in made} == {f"skipped: {NOT_INSTALLED}"}


def test_a_missing_and_a_too_old_redis_server_are_named(tmp_path: Path) -> None:
    assert unavailable(str(tmp_path / "no-such-redis-server")) == NOT_INSTALLED
    old = tmp_path / "redis-server"
    old.write_text("#!/bin/sh\necho 'Redis server v=5.0.14 sha=00000000:0 malloc=jemalloc-5.1.0 bits=64'\n")
    old.chmod(old.stat().st_mode | stat.S_IEXEC)
    assert unavailable(str(old)) == "redis-server 5.0.14 is older than 6.0: no RESP3 (HELLO 3)"
    mute = tmp_path / "mute-redis-server"
    mute.write_text("#!/bin/sh\nexit 0\n")
    mute.chmod(mute.stat().st_mode | stat.S_IEXEC)
    assert unavailable(str(mute)) == "redis-server --version printed no version"


def test_the_plan_skips_what_its_budget_and_the_thread_cap_rule_out() -> None:
    made = {(job.cell.case, job.cell.mode): job.cell for job in redis_jobs(TINY, redis_modes())}
    pool = made[("BLPOP N=40", "emulated-pool")]
    assert pool.skipped and pool.note.startswith("skipped: predicted")  # ceil(40/6)·0.05 s > 0.2 s
    assert pool.model_s == pytest.approx(7 * 0.05)
    glide = made[("BLPOP N=10", "glide-async")]
    assert glide.model_s == pytest.approx(10 * 0.05)  # one connection: N·Y
    threads = made[("BLPOP N=40", "sync")]
    assert threads.skipped and "threads at once" in threads.note
    assert ("BLPOP N=10", "thread-floor") in made and ("BLPOP N=40", "thread-floor") not in made
    storm_note = made[("cancel storm K=100", "redis-py")].note
    assert made[("cancel storm K=100", "redis-py")].skipped and "per-call timeout" in storm_note
    assert not made[("cancel storm K=100", "native-asyncio")].skipped
    assert ("concurrent GET c=100", "raw-resp") not in made  # the floor runs one at a time


@pytest.fixture
def lab() -> Any:
    started: list[RedisServer] = []

    def start() -> RedisServer:
        server = redis_scenario.start()
        started.append(server)
        return server

    made = RedisLab(start, lambda pid: None)
    made.open()
    yield made
    made.stop()
    for server in started:
        server.stop()


@needs_redis
def test_every_case_is_measured_and_checked_against_a_real_redis_server(lab: RedisLab) -> None:
    modes = _modes("sync", "native-asyncio", "emulated-pool", "redis-py-asyncio", "raw-resp")
    cells = {}
    for job in redis_jobs(TINY, modes):
        if not job.cell.skipped:
            cells[(job.cell.case, job.cell.mode)] = lab.round(job)
    measured = list(cells.values())
    assert measured and all(c.errors == 0 and c.wrong == 0 for c in measured), [
        (c.case, c.mode, c.note) for c in measured if c.errors or c.wrong]
    assert all(c.ops_per_s for c in measured)
    assert all(c.client_cpu_us for c in measured if not c.case.startswith("cancel storm"))
    assert all(c.client_cpu_us is None for c in measured if c.case.startswith("cancel storm"))
    for mode in ("sync", "native-asyncio", "emulated-pool"):
        storm = cells[("cancel storm K=100", mode)]
        assert storm.new_connections == 0  # every call given up, and still the one connection
        assert "given up" in storm.note
    native = cells[("BLPOP N=10", "native-asyncio")]
    assert native.model_s and native.ratio  # Y + N·c, c from this round's connect cell
    assert native.model_s > native.delay
    assert native.wall_s and native.wall_s >= native.delay
    sync = cells[("BLPOP N=10", "sync")]
    assert sync.model_s and sync.model_s > cells[("BLPOP N=10", "thread-floor")].wall_s  # type: ignore[operator]


@needs_redis
def test_a_redis_server_that_died_is_started_again_and_the_cell_says_so(lab: RedisLab) -> None:
    """Three times a run (the budget every server the lab started shares); then the
    cell fails and says why."""
    [job] = [j for j in redis_jobs(TINY, _modes("native-asyncio")) if j.cell.case == "sequential GET"]
    for _ in range(MAX_RESTARTS):
        assert lab.server is not None
        os.kill(lab.server.pid, signal.SIGKILL)
        lab.server.process.wait(10)
        cell = lab.round(job)
        assert cell.errors == 0 and cell.ops_per_s, cell.note
        assert "started again" in cell.note
    assert lab.server is not None
    os.kill(lab.server.pid, signal.SIGKILL)
    lab.server.process.wait(10)
    cell = lab.round(job)  # no more restarts: the cell fails, and says why
    assert cell.errors == job.work.total and "may start no more servers again" in cell.note


class _Hanging:
    def get(self, key: str) -> bytes | None:
        time.sleep(20)
        return None

    def close(self) -> None:
        pass


class _HangingAsync:
    async def get(self, key: str) -> bytes | None:
        await anyio.sleep(20)
        return None

    async def aclose(self) -> None:
        pass


async def _open_hanging(opening: Opening) -> Any:
    return _HangingAsync()


@needs_redis
@pytest.mark.parametrize("face", ["sync", "async"])
def test_a_client_that_hangs_is_bounded_by_the_cell_budget(lab: RedisLab, face: str) -> None:
    mode = RedisMode("hangs", "a client that never answers", face,  # type: ignore[arg-type]
                     open_sync=lambda opening: _Hanging(),  # type: ignore[arg-type,return-value]
                     open_async=_open_hanging)
    job = redis_scenario.RedisJob(Cell("redis", "sequential GET", "hangs", "redis", 5, 1, 0.0), mode, "get",
                             Workload(5, 1, 0.0, timeout=1.0))
    started = time.monotonic()
    cell = lab.round(job)
    assert time.monotonic() - started < 15
    assert cell.errors >= 1 and cell.note


def _cell(case: str, mode: str, **values: Any) -> Cell:
    cell = Cell("redis", case, mode, "redis", 100, 10, 0.0, rounds=1)
    for name, value in values.items():
        setattr(cell, name, value)
    return cell


def test_the_storm_goal_is_missed_by_one_connection_opened_again() -> None:
    cells = [_cell("cancel storm K=100", "native-asyncio", wall_s=1.0, new_connections=0.0),
             _cell("cancel storm K=100", "sync", wall_s=1.0, new_connections=1.0),
             _cell("cancel storm K=100", "redis-py-asyncio", wall_s=1.0, new_connections=90.0)]
    verdicts = {g.name: g.verdict for g in evaluate(cells) if "storm" in g.name}
    assert verdicts == {
        "redis cancel storm native-asyncio: wrong answers + connections opened again": "met",
        "redis cancel storm sync: wrong answers + connections opened again": "missed",
    }  # a peer's reconnects are a finding in its row, not a goal of dualio's


def test_fan_out_goals_judge_dualio_modes_against_their_models() -> None:
    cells = [_cell("BLPOP N=100", "native-asyncio", wall_s=0.2, model_s=0.1, ratio=2.0),
             _cell("BLPOP N=100", "emulated-pool", wall_s=0.9, model_s=0.85, ratio=0.9 / 0.85),
             _cell("BLPOP N=100", "glide-async", wall_s=5.0, model_s=0.5, ratio=10.0)]
    verdicts = {g.name: g.verdict for g in evaluate(cells) if "fan-out" in g.name}
    assert verdicts == {"redis fan-out BLPOP N=100 native-asyncio measured/model": "missed",
                        "redis fan-out BLPOP N=100 emulated-pool measured/model": "met"}
    assert not [g for g in evaluate(cells) if "raw blocking socket" in g.name]  # no other scenario's


def test_a_peers_failures_are_reported_without_failing_the_run() -> None:
    assert redis_scenario.is_peer(_cell("BLPOP N=10", "glide-async"))
    assert not redis_scenario.is_peer(_cell("BLPOP N=10", "native-asyncio"))
    assert not redis_scenario.is_peer(Cell("fanout", "N=10", "sync", "async", 10, 10, 0.1))


def _bench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dualio", "bench", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=240)


@needs_redis
def test_the_redis_scenario_runs_from_the_command_line(tmp_path: Path) -> None:
    run = _bench("--scenario", "redis", "--modes", "sync,native-asyncio,raw-resp", "--quick", "--repeat",
                 "1", "--ns", "10", "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [folder] = tmp_path.glob("bench-*")
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["redis_server"]["version"] and not data["meta"]["redis_server"]["skipped"]
    cells = data["cells"]
    assert {c["scenario"] for c in cells} == {"redis"}
    assert {c["mode"] for c in cells} == {"sync", "native-asyncio", "raw-resp", "thread-floor"}
    assert all(c["errors"] == 0 and c["wrong"] == 0 for c in cells if not c["skipped"])
    names = [g["name"] for g in data["goals"]]
    assert "redis cancel storm native-asyncio: wrong answers + connections opened again" in names
    assert not [n for n in names if not n.startswith("redis")]
    assert (folder / "redis.png").stat().st_size > 10_000
    assert "Traceback" not in run.stderr


def test_with_host_the_redis_cells_are_skipped_with_the_reason(tmp_path: Path) -> None:
    run = _bench("--scenario", "redis", "--host", "127.0.0.1", "--modes", "sync", "--quick",
                 "--repeat", "1", "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "the Redis scenario runs against a redis-server the lab starts itself" in run.stderr
    [folder] = tmp_path.glob("bench-*")
    cells = json.loads((folder / "results.json").read_text())["cells"]
    assert cells and all(c["skipped"] for c in cells)


def test_a_redis_server_that_does_not_start_skips_the_cells_and_the_run_goes_on(tmp_path: Path) -> None:
    broken = tmp_path / "redis-server"
    broken.write_text("#!/bin/sh\n"
                      "if [ \"$1\" = --version ]; then\n"
                      "  echo 'Redis server v=7.2.4 sha=0 bits=64'; exit 0\n"
                      "fi\n"
                      "echo 'refusing to start' >&2; exit 1\n")
    broken.chmod(broken.stat().st_mode | stat.S_IEXEC)
    run = _bench("--scenario", "redis", "--redis-server", str(broken), "--modes", "sync", "--quick",
                 "--repeat", "1", "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "the Redis cells are skipped: redis-server on port" in run.stderr
    assert "did not start (exit 1)" in run.stderr and "Traceback" not in run.stderr
    [folder] = tmp_path.glob("bench-*")
    data = json.loads((folder / "results.json").read_text())
    assert data["cells"] and all(c["skipped"] for c in data["cells"])
    assert data["meta"]["redis_server"]["version"] == "7.2.4"


@needs_redis
def test_a_redis_server_that_stops_answering_is_started_again(lab: RedisLab) -> None:
    [job] = [j for j in redis_jobs(TINY, _modes("sync")) if j.cell.case == "sequential GET"]
    assert lab.server is not None
    hung = lab.server
    os.kill(hung.pid, signal.SIGSTOP)  # alive, and answering nothing
    try:
        cell = lab.round(job)
    finally:
        hung.stop()  # SIGKILL ends it, stopped or not
    assert cell.errors == 0 and cell.ops_per_s, cell.note
    assert "answered no PING in 5 s before this cell: started again" in cell.note
    assert lab.server is not hung


class _Early:
    def get(self, key: str) -> bytes | None:
        return None

    def blpop(self, name: str, wait: float) -> object:
        return None  # at once, as if the server had not held it

    def close(self) -> None:
        pass


def test_a_blpop_that_returns_before_its_wait_counts_as_wrong() -> None:
    mode = RedisMode("early", "a client whose BLPOP returns at once", "sync",
                     open_sync=lambda opening: _Early(), backend="")  # type: ignore[arg-type,return-value]
    outcome = redis_clients.run(mode, Opening("127.0.0.1", 1, 5.0), "blpop", Workload(5, 5, 0.2, 10.0))
    assert outcome.wrong == 5


@needs_redis
def test_a_storm_in_which_nothing_was_answered_is_an_error(lab: RedisLab) -> None:
    assert lab.server is not None

    class Slow:
        async def get(self, key: str) -> bytes | None:
            await anyio.sleep(0.5)  # past every call's moment to give up (under 40 ms)
            return redis_clients.value_of(int(key.split(":")[1]))

        async def blpop(self, name: str, wait: float) -> object:
            return None

        async def aclose(self) -> None:
            pass

    async def open_slow(opening: Opening) -> Any:
        return Slow()

    mode = RedisMode("slow", "answers after every call gave up", "async", open_async=open_slow)
    stormed = storm(mode, lab.server.address, Workload(20, 10, 0.0, 30.0), seed=1)
    assert stormed.given_up == 20
    assert stormed.outcome.errors == 1 and "nothing was answered" in stormed.outcome.first_error
