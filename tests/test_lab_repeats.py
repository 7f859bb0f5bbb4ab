"""``dualio bench`` repeats each cell: per-round samples, medians, spreads, goals on them,
the run's context in results.json, and a Ctrl-C that keeps what finished."""

from __future__ import annotations

import datetime
import json
import re
import signal
import socket
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dualio.lab.bench import summary
from dualio.lab.bench.goals import evaluate, judge
from dualio.lab.bench.results import METRICS, Cell, summarise
from dualio.lab.common.metadata import PACKAGES, SCHEMA_VERSION
from dualio_transports.dualio_protocol.methods import ServerStats
from tests.conftest import ServerProcess

ROUNDS = 3


def bench(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dualio", "bench", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Sequential throughput of sync and raw-socket, and a tiny fan-out, three rounds each."""
    out = tmp_path_factory.mktemp("repeats")
    run = bench("--scenario", "throughput,fanout", "--modes", "sync,raw-socket", "--ns", "20",
                "--delay", "0.01", "--quick", "--repeat", str(ROUNDS), "--out", str(out), cwd=out)
    [folder] = out.glob("bench-*")
    return run, folder


def test_repeat_must_be_at_least_one(tmp_path: Path) -> None:
    run = bench("--repeat", "0", "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.strip() == "dualio bench: --repeat must be >= 1, not 0"
    assert not list(tmp_path.glob("bench-*"))  # refused before anything ran


def test_results_json_carries_the_run_context(
        small_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    run, folder = small_run
    assert run.returncode == 0, run.stderr
    data = json.loads((folder / "results.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION and isinstance(data["schema_version"], int)
    meta = data["meta"]
    assert meta["dualio_version"]
    assert meta["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", meta["git_commit"])
    started = datetime.datetime.fromisoformat(meta["started"])
    assert started.tzinfo is not None
    assert datetime.datetime.fromisoformat(meta["finished"]) >= started
    assert meta["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    assert meta["python"]["implementation"] == sys.implementation.name.replace("cpython", "CPython")
    assert meta["os"]["platform"] and meta["os"]["kernel"]
    assert meta["machine"]["cpu_model"] and meta["machine"]["logical_cpus"] >= 1
    assert set(meta["packages"]) == set(PACKAGES)
    assert meta["packages"]["anyio"]  # a dependency: always there
    assert meta["command"].startswith("dualio bench --scenario throughput,fanout")
    assert meta["repeat"] == ROUNDS and meta["partial"] is False
    assert meta["duration_s"] > 0


def _numbers_are_numbers(value: Any, where: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _numbers_are_numbers(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _numbers_are_numbers(item, f"{where}[{index}]")
    elif isinstance(value, str):
        assert not re.fullmatch(r"[-+]?[\d,]+(\.\d+)?\s*%?", value), f"{where} is a number as text: {value!r}"


def test_every_number_is_a_json_number(small_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, folder = small_run
    data = json.loads((folder / "results.json").read_text())
    _numbers_are_numbers(data, "results")
    [goal] = [g for g in data["goals"] if g["name"] == "sync sequential vs raw blocking socket"]
    assert goal["verdict"] in ("met", "missed", "inconclusive")
    for field in ("target", "median", "low", "high"):
        assert isinstance(goal[field], float), field
    assert goal["low"] <= goal["median"] <= goal["high"]
    assert goal["direction"] == "at least" and goal["unit"] == "×" and goal["rounds"] == ROUNDS


def test_each_cell_keeps_its_rounds_and_their_median(
        small_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, folder = small_run
    cells = json.loads((folder / "results.json").read_text())["cells"]
    assert {(c["scenario"], c["mode"]) for c in cells} == {
        ("throughput", "sync"), ("throughput", "raw-socket"), ("fanout", "sync")}
    for cell in cells:
        assert cell["rounds"] == ROUNDS
        for metric in ("wall_s", "ops_per_s", "p50_ms", "peak_rss_mb"):
            values = cell["samples"][metric]
            assert len(values) == ROUNDS
            assert cell[metric] == pytest.approx(statistics.median(values))
            low, high = cell["interval"][metric]
            assert low <= cell[metric] <= high
        assert set(cell["samples"]) <= set(METRICS)
        assert cell["server_rss_mb"] > 10  # a Python process
        assert cell["server_cpu_us"] >= 0
        assert cell["errors"] == cell["wrong"] == 0
    fanout = next(c for c in cells if c["scenario"] == "fanout")
    assert all(w >= 20 * 0.01 for w in fanout["samples"]["wall_s"])  # 20 sequential waits of Y


def test_output_fits_and_progress_is_plain(small_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    run, folder = small_run
    assert max(len(line) for line in run.stdout.splitlines() if str(folder) not in line) <= 100
    assert re.search(r"^sequential +sync +[\d.]+ ±[\d.]+% +[\d,]+ ±[\d.]+%", run.stdout, re.MULTILINE)
    assert "range (lowest to highest)" in run.stdout
    progress = [line for line in run.stderr.splitlines() if line.startswith("[")]
    assert progress[0].startswith(f"[1/{3 * ROUNDS}] throughput sequential sync (async), round 1/{ROUNDS}")
    assert len(progress) == 3 * ROUNDS
    markdown = (folder / "results.md").read_text()
    assert markdown.startswith("# dualio lab results, ")
    assert "## Goals" in markdown and "| sync sequential vs raw blocking socket |" in markdown
    for chart in folder.glob("*.png"):
        assert f"]({chart.name})" in markdown


def _cell(mode: str, ops: list[float | None], scenario: str = "throughput", case: str = "sequential") -> Cell:
    """A cell summarised from its rounds; a None is a round that failed before measuring."""
    rounds = []
    for value in ops:
        one = Cell(scenario, case, mode, "async", 1000, 1, 0.0)
        if value is not None:
            one.ops_per_s, one.wall_s = value, 1000 / value
        rounds.append(one)
    return summarise(Cell(scenario, case, mode, "async", 1000, 1, 0.0), rounds)


def _goal(cells: list[Cell], name: str) -> Any:
    return next(g for g in evaluate(cells) if g.name == name)


@pytest.mark.parametrize(("sync_ops", "verdict"), [
    ([80.0, 90.0, 100.0], "inconclusive"),  # ratios 0.8, 0.9, 1.0: the range straddles 0.9
    ([95.0, 100.0, 105.0], "met"),
    ([50.0, 60.0, 70.0], "missed"),
    ([91.0], "met"),  # one round: no spread, the verdict is the median's
])
def test_a_goal_is_judged_on_its_rounds(sync_ops: list[float], verdict: str) -> None:
    raw = _cell("raw-socket", [100.0] * len(sync_ops))
    goal = _goal([_cell("sync", sync_ops), raw], "sync sequential vs raw blocking socket")
    assert goal.verdict == verdict
    assert goal.median == pytest.approx(statistics.median(s / 100 for s in sync_ops))
    assert goal.low <= goal.median <= goal.high
    assert goal.rounds == len(sync_ops)


def test_goal_ratios_pair_rounds_not_medians() -> None:
    """The peer drifted with the mode round by round: the per-round ratio is steady at 0.95
    although the medians alone would give 100/100 = 1.0."""
    mine = _cell("sync", [95.0, 100.0, 190.0])
    peer = _cell("raw-socket", [100.0, 105.26315789473684, 200.0])
    goal = _goal([mine, peer], "sync sequential vs raw blocking socket")
    assert goal.median == pytest.approx(0.95)
    assert goal.high - goal.low == pytest.approx(0.0, abs=1e-9)


def test_goal_ratios_pair_the_same_rounds_when_one_was_lost() -> None:
    """The mode failed in its second round: its third round pairs with the peer's
    third, not its second."""
    mine = _cell("sync", [95.0, None, 190.0])
    peer = _cell("raw-socket", [100.0, 150.0, 200.0])
    goal = _goal([mine, peer], "sync sequential vs raw blocking socket")
    assert goal.rounds == 2
    assert goal.low == pytest.approx(0.95) and goal.high == pytest.approx(0.95)


def test_a_missing_peer_is_not_measured() -> None:
    goal = _goal([_cell("sync", [100.0])], "sync sequential vs raw blocking socket")
    assert goal.verdict == "not measured" and goal.median is None


@pytest.mark.parametrize(("values", "verdict"), [
    ([0.88, 1.00, 1.10], "inconclusive"),  # range [0.88, 1.10] straddles the lower bound 0.95
    ([1.10, 1.14, 1.20], "inconclusive"),  # range [1.10, 1.20] straddles the upper bound 1.15
    ([1.00, 1.02, 1.05], "met"),
    ([1.30, 1.40, 1.50], "missed"),
])
def test_a_range_goal_is_inconclusive_across_either_bound(values: list[float], verdict: str) -> None:
    assert judge("within", 0.95, values, 1.15)[3] == verdict


def test_summaries_sum_failures_and_keep_the_median() -> None:
    rounds = [Cell("fanout", "N=10", "sync", "async", 10, 10, 0.1) for _ in range(4)]
    for index, one in enumerate(rounds):
        one.wall_s, one.peak_threads = 1.0 + index, 3 + index
    rounds[2].errors, rounds[3].wrong = 2, 1
    rounds[2].note = "lost a call"
    cell = summarise(Cell("fanout", "N=10", "sync", "async", 10, 10, 0.1), rounds)
    assert (cell.errors, cell.wrong, cell.lost) == (2, 1, True)
    assert cell.wall_s == 2.5 and cell.interval["wall_s"] == (1.0, 4.0)
    assert isinstance(cell.peak_threads, int)
    assert cell.note == "lost a call" and cell.rounds == 4
    assert cell.ops_per_s is None and "ops_per_s" not in cell.samples


def test_the_bootstrap_interval_is_deterministic_and_holds_the_median() -> None:
    values = [10.0, 12.0, 11.0, 30.0, 10.5, 11.5, 9.0]
    first = summary.spread(values)
    assert first == summary.spread(list(values))
    assert first[0] <= summary.median(values) <= first[1]
    assert min(values) <= first[0] and first[1] <= max(values)
    assert summary.method(len(values)).startswith("bootstrap")
    assert summary.spread([4.0]) == (4.0, 4.0)


def test_ctrl_c_keeps_what_finished(tmp_path: Path) -> None:
    """SIGINT while a long cell runs: the servers stop, results.json says partial, exit 130."""
    process = subprocess.Popen(
        [sys.executable, "-m", "dualio", "bench", "--scenario", "fanout", "--ns", "2,300",
         "--delay", "0.4", "--modes", "native-asyncio,emulated-pool", "--repeat", "1",
         "--out", str(tmp_path)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # the 3rd cell, N=300 through a pool of 6, takes 20 s
        seen.append(line)
        if line.startswith("[2/4] "):
            break
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, "".join(seen) + stderr
    assert "Traceback" not in stderr
    [folder] = tmp_path.glob("bench-*")
    data = json.loads((folder / "results.json").read_text())
    assert data["meta"]["partial"] is True
    finished = {(c["case"], c["mode"]) for c in data["cells"]}
    assert finished == {("N=2", "native-asyncio"), ("N=2", "emulated-pool")}
    assert all(c["rounds"] == 1 and c["errors"] == 0 for c in data["cells"])
    assert "partial" in (folder / "results.md").read_text()
    assert not list(folder.glob(".*.tmp"))
    assert "interrupted" in stderr
    host, port = data["meta"]["servers"]["async"].rsplit(":", 1)
    with pytest.raises(ConnectionRefusedError):  # the server the run started is gone
        socket.create_connection((host, int(port)), timeout=5).close()


def test_the_lab_asks_a_slow_server_for_its_counters_again() -> None:
    """A server too busy to answer the lab's first stats call in time is asked again, not
    taken for gone; one that never answers still ends the run."""
    from dualio.lab.bench.command import server_stats
    from dualio_sync import Client, DualioTimeout
    from dualio_transports.dualio_protocol.frames import FrameKind
    from dualio_transports.dualio_protocol.methods import ServerStats
    from tests.scripted_peer import ScriptedPeer, drain, expect, reply, stall

    answer = ServerStats(1, 2, 0, 3, 0).to_json()
    peer = ScriptedPeer(expect(FrameKind.REQUEST), expect(FrameKind.CANCEL), expect(FrameKind.REQUEST),
                        reply(FrameKind.RESPONSE, answer), drain())
    with peer, Client(*peer.address, retry=None) as client:
        assert server_stats(client, each=0.3, patience=5) == ServerStats(1, 2, 0, 3, 0)
    silent = ScriptedPeer(stall(3), drain())
    with silent, Client(*silent.address, retry=None) as client, pytest.raises(DualioTimeout):
        server_stats(client, each=0.3, patience=1)


def test_a_connect_timeout_is_a_limit_also_once_retried() -> None:
    from dualio import ConnectTimeout, DualioTimeout
    from dualio.lab.bench.machine_limits import is_limit
    from dualio_transports.wire.errors import RetriesExhausted

    timeout = ConnectTimeout("the server did not answer the handshake in time")
    retried = RetriesExhausted("gave up after 2 tries", 2, [timeout, timeout])
    retried.__cause__ = timeout
    assert is_limit(timeout) and is_limit(retried)
    assert not is_limit(DualioTimeout("the call timed out"))


def test_a_reset_during_the_handshake_is_a_limit_and_one_after_it_is_not() -> None:
    from dualio import ConnectError, ConnectionLost
    from dualio.lab.bench.machine_limits import explain, is_limit

    def chain(outer: Exception) -> Exception:
        broke = ConnectionLost("the connection broke")
        broke.__cause__ = ConnectionResetError(104, "Connection reset by peer")
        outer.__cause__ = broke
        return outer

    in_handshake = chain(ConnectError("the server closed the connection during the handshake"))
    assert is_limit(in_handshake)
    assert "reset the connection before its handshake was done" in explain(in_handshake)
    assert not is_limit(chain(ConnectionLost("the call's connection was lost")))


def test_a_reset_the_native_transport_stores_during_the_handshake_is_a_limit() -> None:
    """The asyncio transport stores the socket's failure and raises it later: the reset
    stays reachable as the cause, so the lab still sees where it happened."""
    from dualio.lab.bench.machine_limits import is_limit
    from dualio_transports.wire import failures

    reset = ConnectionResetError(104, "Connection reset by peer")
    lost = failures.broken(reset)
    assert lost.__cause__ is reset
    error = failures.handshake_failed(lost)
    error.__cause__ = lost  # as the call table raises it: ``raise failure from error``
    assert is_limit(error)


@pytest.mark.parametrize(
    ("served", "lost"), [(90, False), (95, False), (100, False), (89, True), (101, True)]
)
def test_the_server_may_have_served_calls_the_client_gave_up_on(served: int, lost: bool) -> None:
    """100 calls, 10 stopped by a limit: the server served the 90 answered ones, and maybe
    some of the 10 whose client gave up after the request left; never fewer, never more
    than 100."""
    from dualio.lab.bench.results import check_server
    from dualio.lab.bench.workloads import Workload
    from dualio_transports.dualio_protocol.methods import ServerStats

    cell = Cell("echo", "N=100", "native-asyncio", "threaded", 100, 100, 0.1)
    cell.limited = 10
    before, after = ServerStats(0, 0, 0, 1000, 0), ServerStats(0, 0, 0, 1000 + 1 + served, 0)
    check_server(cell, before, after, Workload(100, 100, 0.1))
    assert (cell.errors > 0) == lost, cell.note


@pytest.mark.parametrize(("portal_ops", "verdict"), [
    ([300.0, 310.0, 320.0], "met"),  # portal time 0.63-0.67× the anchor's
    ([230.0, 250.0, 270.0], "inconclusive"),  # 0.74-0.87×: the range straddles 0.8
    ([180.0, 190.0, 200.0], "missed"),
])
def test_the_portal_is_judged_against_each_anchor_on_time(portal_ops: list[float], verdict: str) -> None:
    cells = [_cell("portal", portal_ops), _cell("anyio-portal", [200.0] * 3),
             _cell("synchronicity", [200.0] * 3)]
    for anchor in ("anyio-portal", "synchronicity"):
        goal = _goal(cells, f"portal sequential time vs {anchor}")
        assert goal.verdict == verdict and goal.direction == "at most" and goal.target == 0.8
        assert goal.median == pytest.approx(statistics.median(200.0 / ops for ops in portal_ops))


def _fanned(n: int, ratios: list[float]) -> Cell:
    rounds = []
    for ratio in ratios:
        one = Cell("fanout", f"N={n}", "portal-threads", "async", n, n, 0.05)
        one.wall_s, one.model_s, one.ratio = ratio, 1.0, ratio
        rounds.append(one)
    return summarise(Cell("fanout", f"N={n}", "portal-threads", "async", n, n, 0.05), rounds)


def test_the_portal_fanout_goal_waits_for_n_of_a_thousand() -> None:
    small = _cell("portal-threads", [100.0] * 3, "fanout", "N=100")
    assert _goal([small], "portal-threads fan-out measured/model (N = 1000)").verdict == "not measured"


def test_the_portal_fanout_goal_is_judged_at_a_thousand_not_at_ten_thousand() -> None:
    """At 10,000 threads the GIL sets the pace; the goal is the issue's N = 1,000."""
    cells = [_fanned(100, [3.0] * 3), _fanned(1000, [0.8, 0.9, 1.0]), _fanned(10_000, [5.0] * 3)]
    goal = _goal(cells, "portal-threads fan-out measured/model (N=1000)")
    assert goal.verdict == "met" and goal.median == pytest.approx(0.9)
    cells[1] = _fanned(1000, [1.8, 2.0, 2.2])
    assert _goal(cells, "portal-threads fan-out measured/model (N=1000)").verdict == "missed"


def test_a_server_that_stops_answering_the_lab_after_a_cell_is_its_limit_not_a_lost_call(
        server: ServerProcess) -> None:
    """The cell's calls were all answered; the lab's own stats call after them was not:
    the server is started again, and the cell counts that as the server's limit."""
    from dualio import DualioTimeout
    from dualio.lab.bench.command import Lab
    from dualio.lab.bench.modes import all_modes
    from dualio.lab.bench.operations import Echo
    from dualio.lab.bench.scenarios import Job, Plan
    from dualio.lab.bench.workloads import Workload

    class Process:  # what the lab reads of a server it started
        alive = True
        rss_bytes = None

        def cpu_seconds(self) -> float | None:
            return None

        def reset_peak_rss(self) -> bool:
            return False

    class Stats:
        closed = False

        def __init__(self) -> None:
            self.asked = 0

        def stats(self, *, timeout: float | None) -> ServerStats:
            self.asked += 1
            if self.asked > 1:
                raise DualioTimeout("the server answered no stats")
            return ServerStats(0, 0, 0, 0, 0)

    restarted: list[str] = []
    mode = next(m for m in all_modes() if m.name == "sync")
    lab = Lab(Plan.quick(), {"async": Process()}, {"async": (server.host, server.port)},  # type: ignore[dict-item]
              {"async": Stats()}, 0.0, restarted.append)
    cell = lab.job_round(Job(Cell("throughput", "sequential", "sync", "async", 20, 1, 0.0), mode,
                             Workload(20, 1, 0.0), Echo(0.0)))
    assert restarted == ["async"]
    assert cell.errors == 0 and cell.limited == 1 and cell.ops_per_s
    assert "the server stopped answering the lab: started again" in cell.note


def _set_ups_failing(number: int, exc: BaseException) -> Any:
    """A thread mode's set-up whose ``number``-th call raises ``exc``."""
    import threading

    made = 0
    lock = threading.Lock()

    def make_call() -> tuple[Any, Any]:
        nonlocal made
        with lock:
            made += 1
            if made == number:
                raise exc
        return (lambda index: True), (lambda: None)

    return make_call


def test_calls_that_never_ran_because_threads_hit_a_limit_count_as_limited() -> None:
    """One of 10 threads meets the open-files limit as it sets up: no thread makes a
    call, and all 40 calls are the limit's, not lost ones (the server served none)."""
    import errno

    from dualio.lab.bench.workloads import Workload, drive_threads

    make_call = _set_ups_failing(3, OSError(errno.EMFILE, "Too many open files"))
    outcome = drive_threads(make_call, Workload(40, 10, 0.0, timeout=10.0))
    assert outcome.errors == 0 and not outcome.latencies
    assert outcome.limited == 40 and "open-files limit" in outcome.limit


def test_calls_of_threads_that_did_not_all_start_in_time_count_as_limited(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads start so slowly that the set-up time passes before all 10 have: no
    thread makes a call, and all 40 calls are the machine's limit, even though one
    thread's connect failed too (a ConnectTimeout, another limit)."""
    import threading
    import time

    from dualio import ConnectTimeout
    from dualio.lab.bench import workloads

    class SlowThread(threading.Thread):
        def start(self) -> None:
            time.sleep(0.05)
            super().start()

    make_call = _set_ups_failing(2, ConnectTimeout("the server did not answer the handshake in time"))
    monkeypatch.setattr(workloads, "THREADS_SET_UP_FLOOR_S", 0.0)
    monkeypatch.setattr(workloads.threading, "Thread", SlowThread)
    outcome = workloads.drive_threads(make_call, workloads.Workload(40, 10, 0.0, timeout=10.0))
    assert outcome.errors == 0 and not outcome.latencies
    assert outcome.limited == 40


def test_a_round_stopped_before_its_first_call_measured_no_time() -> None:
    """Every call of a round stopped by a limit at set-up: the round has no wall time
    (not 0 s), no rate and no ratio to its model, so the cell's median and spread are
    those of the rounds that ran."""
    import errno

    from dualio.lab.bench.results import fill, summarise
    from dualio.lab.bench.workloads import Outcome, Workload, drive_threads

    make_call = _set_ups_failing(3, OSError(errno.EMFILE, "Too many open files"))
    stopped = drive_threads(make_call, Workload(40, 10, 0.0, timeout=10.0))
    assert stopped.limited == 40
    rounds = []
    ran = [Outcome(wall=wall, latencies=[1.0] * 40) for wall in (3.0, 3.6)]
    for outcome in (ran[0], stopped, ran[1]):
        cell = Cell("fanout", "N=40", "threads", "async", 40, 40, 0.1, model_s=4.0)
        rounds.append(fill(cell, outcome, threads=1, rss=0))
    assert (rounds[1].wall_s, rounds[1].ops_per_s, rounds[1].ratio) == (None, None, None)
    cell = summarise(Cell("fanout", "N=40", "threads", "async", 40, 40, 0.1, model_s=4.0), rounds)
    assert cell.samples["wall_s"] == [3.0, 3.6] and cell.sampled["wall_s"] == [0, 2]
    assert cell.wall_s == pytest.approx(3.3) and cell.interval["ratio"][0] == pytest.approx(0.75)
    assert cell.limited == 40


def test_threads_whose_set_up_failed_otherwise_are_an_error() -> None:
    """A set-up that fails with no limit behind it stops the round as an error."""
    from dualio.lab.bench.workloads import Workload, drive_threads

    def make_call() -> tuple[Any, Any]:
        raise ValueError("a bug in the mode's set-up")

    outcome = drive_threads(make_call, Workload(40, 10, 0.0, timeout=10.0))
    assert outcome.errors >= 1 and outcome.limited == 0 and "bug" in outcome.first_error


@pytest.mark.parametrize(("server_errors", "lost"), [(0, False), (10, False), (11, True), (-1, True)])
def test_a_server_may_count_an_error_for_each_call_stopped_by_a_limit(
        server_errors: int, lost: bool) -> None:
    """10 of 100 calls stopped while connecting: the server may have ended up to 10
    connections without an answer, never more."""
    from dualio.lab.bench.results import check_server
    from dualio.lab.bench.workloads import Workload
    from dualio_transports.dualio_protocol.methods import ServerStats

    cell = Cell("echo", "N=100", "native-asyncio", "threaded", 100, 100, 0.1)
    cell.limited = 10
    before = ServerStats(0, 0, 0, 1000, 5)
    after = ServerStats(0, 0, 0, 1000 + 1 + 90, 5 + server_errors)
    check_server(cell, before, after, Workload(100, 100, 0.1))
    assert (cell.errors > 0) == lost, cell.note
