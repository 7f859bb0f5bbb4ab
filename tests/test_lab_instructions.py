"""The instruction counter's arithmetic, verdicts and bad input (no valgrind needed here;
tests/perf/test_instructions.py runs it for real)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dualio.lab.instructions import counter as instructions
from dualio.lab.instructions.counter import FIGURES, GATED, Count, NotDeterministic, count, judge


def test_per_call_is_the_difference_of_two_loop_lengths() -> None:
    # 5,000 instructions of set-up in every loop, 70 per call
    totals = [(n, 5_000 + 70 * n) for n in (400, 800, 400, 800)]
    assert count("sync", totals).per_call == 70


def test_two_estimates_more_than_one_percent_apart_are_refused() -> None:
    totals = [(400, 28_000), (800, 56_000), (400, 28_000), (800, 56_400)]  # 70 and 71 per call
    with pytest.raises(NotDeterministic, match=r"sync: two runs gave 70 and 71 .*\(1\.4% apart"):
        count("sync", totals)
    assert count("emulated-callback", totals, check=False).spread == pytest.approx(1 / 70)


class _Counter:
    """Stands in for the callgrind processes: each run of a group yields its figures' four
    loops, whose totals are steady (70 per call) unless a figure is told to be noisy for
    its first ``noisy[name]`` runs."""

    def __init__(self, noisy: dict[str, int]) -> None:
        self.noisy = noisy
        self.runs: list[list[str]] = []
        self.totals: dict[Path, int] = {}

    def loops(self, folder: Path, groups: list[list[str]], calls: int, env: object = None
              ) -> Iterator[tuple[str, list[tuple[int, Path]]]]:
        for group in groups:
            self.runs.append(group)
            for name in group:
                seen = sum(name in run for run in self.runs)
                extra = 400 if seen <= self.noisy.get(name, 0) else 0
                loops = []
                for i, n in enumerate((calls, 2 * calls, calls, 2 * calls)):
                    path = Path(f"{name}.{len(self.runs)}.{i}")
                    self.totals[path] = 70 * n + (extra if i == 3 else 0)
                    loops.append((n, path))
                yield name, loops


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, int]], _Counter]:
    def make(noisy: dict[str, int]) -> _Counter:
        made = _Counter(noisy)
        monkeypatch.setattr(instructions, "_loops", made.loops)
        monkeypatch.setattr(instructions, "_dump_total", made.totals.__getitem__)
        monkeypatch.setattr(instructions, "_compile_first", lambda: None)
        return made
    return make


def test_a_figure_whose_estimates_disagree_is_counted_again_with_its_process_mates(
    counter: Callable[[dict[str, int]], _Counter]
) -> None:
    made = counter({"emulated-pool": 1})
    counts = instructions.run(["sync", "native", "emulated-pool", "portal"], calls=400)
    assert made.runs == [["emulated-pool"], ["sync", "native", "portal"], ["emulated-pool"]]
    assert counts["emulated-pool"].per_call == 70 and counts["emulated-pool"].attempt == 2
    assert counts["sync"].attempt == 1
    assert "(counted 2 times)" in instructions.table(counts).splitlines()[3]


def test_a_figure_that_never_agrees_fails_after_three_counts(
    counter: Callable[[dict[str, int]], _Counter]
) -> None:
    made = counter({"portal": 3})
    with pytest.raises(NotDeterministic, match=r"portal: counted 3 times, the last two runs gave 70 and 71"):
        instructions.run(["sync", "portal"], calls=400)
    assert made.runs == [["portal"], ["sync"], ["portal"], ["portal"]]


def test_the_processes_get_about_equal_work_the_same_groups_every_time() -> None:
    """The longest figures go first, each to the process with the least so far; in each
    process the figures keep their order, those whose calls cross threads after those whose
    calls do not. Nothing of the machine decides the groups."""
    names = list(instructions.GATED)
    groups = instructions._split(names)
    assert len(groups) == instructions.PROCESSES
    assert sorted(name for group in groups for name in group) == sorted(names)
    work = [sum(instructions.FIGURES[name].seconds for name in group) for group in groups]
    heaviest = max(instructions.FIGURES[name].seconds for name in names)
    assert max(work) - min(work) <= heaviest
    for group in groups:
        threadless = [name for name in group if not instructions.FIGURES[name].threads]
        assert group[:len(threadless)] == threadless == sorted(threadless, key=names.index)
        assert group[len(threadless):] == sorted(group[len(threadless):], key=names.index)
    crossing = [sum(instructions.FIGURES[name].threads for name in group) for group in groups]
    assert any(0 < n < len(group) for n, group in zip(crossing, groups, strict=True))  # order matters
    threads = {"emulated-thread", "emulated-pool", "portal"}
    assert all(len(threads & set(group)) < len(threads) for group in groups)
    assert instructions._split(names) == groups


def _counts(**per_call: float) -> dict[str, Count]:
    return {name: Count(name, value, (value, value)) for name, value in per_call.items()}


def test_the_verdict_judges_dualio_figures_against_three_percent() -> None:
    baseline = {"sync": 1000.0, "native": 1000.0, "native-100": 1000.0, "sync-raw": 1000.0}
    verdict = judge(baseline, _counts(sync=1031, native=969, **{"native-100": 1029, "sync-raw": 2000}))
    assert verdict.regressed == ["sync"]
    assert verdict.improved == ["native"]
    rows = {line.split()[0]: line for line in verdict.report.splitlines()[1:]}
    assert "REGRESSED" in rows["sync"] and "+3.1%" in rows["sync"]
    assert "ratchet" in rows["native"]
    assert rows["native-100"].endswith("ok")
    assert rows["sync-raw"].endswith("not judged")  # a raw floor is shown, never judged


def test_the_gate_judges_neither_floors_nor_the_racing_callback_nor_asyncio() -> None:
    assert "emulated-callback" not in GATED
    assert "to-thread" in FIGURES and "to-thread" not in GATED  # asyncio.to_thread: not dualio's code
    assert all(FIGURES[name].floor for name in GATED)
    assert all(FIGURES[name].floor in FIGURES for name in GATED)


def test_a_baseline_is_kept_per_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "instructions.json"
    path.write_text(json.dumps({"cpython-2.7": {"python": "2.7.18", "calls": 1, "figures": {"sync": 1}}}))
    assert instructions.read_baseline(path) is None  # no entry for this Python
    instructions.write_baseline(path, _counts(sync=72_000.4), 400)
    assert instructions.read_baseline(path) == {"sync": 72_000}
    assert set(json.loads(path.read_text())) == {"cpython-2.7", instructions.baseline_key()}


@pytest.mark.parametrize(("args", "message"), [
    (["--calls", "150"], "multiple of 100"),
    (["--calls", "0"], "multiple of 100"),
    (["nonsense"], "unknown figure 'nonsense'"),
    (["--annotate", "nonsense"], "unknown figure 'nonsense'"),
    (["sync", "--write-baseline", "x.json"], "name none"),
])
def test_bad_arguments_are_refused(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        instructions.main(args)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_missing_valgrind_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    assert instructions.main(["sync"]) == 2
    assert "valgrind is not installed" in capsys.readouterr().err


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_figure_runs_and_answers_right(name: str) -> None:
    """Each loop makes its calls on its fake peer and checks every answer (a wrong one raises)."""
    assert FIGURES[name].run(200, time.process_time) > 0


def test_the_redis_figures_are_gated_each_beside_its_raw_floor() -> None:
    for name in ("redis-sync", "redis-native", "redis-native-100"):
        assert name in GATED
        assert FIGURES[FIGURES[name].floor or ""].is_floor


def test_the_fake_resp_peer_answers_as_a_redis_server_does() -> None:
    """HELLO 3 is answered with a map the handshake accepts, every GET with the 16-byte
    value, PING with PONG, anything else with an error; commands in one write, in order."""
    from dualio.lab.instructions.fake_peers import GET_COMMAND, GET_REPLY, PAYLOAD, read_bulk, resp_answers
    from dualio_transports.redis_protocol.client_protocol import _check_hello
    from dualio_transports.redis_protocol.resp import ReplyReader, encode_command, parse

    assert _check_hello(parse(resp_answers(encode_command("HELLO", 3)))) is None
    assert resp_answers(GET_COMMAND * 3) == GET_REPLY * 3
    assert read_bulk(GET_REPLY) == (PAYLOAD, len(GET_REPLY))
    mixed = encode_command("GET", "other") + encode_command("PING") + encode_command("SET", "k", "v")
    replies = [parse(raw) for _, raw in ReplyReader().feed(resp_answers(mixed + GET_COMMAND))]
    assert replies[:2] == [PAYLOAD, b"PONG"] and replies[3] == PAYLOAD
    assert "unknown command" in replies[2].text


def test_the_real_server_loops_run_and_answer_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each loop of ``python -m dualio.lab.instructions.real_redis`` against a redis-server
    it starts (the peers installed here among them), without valgrind: the GETs answer the
    value set, and the server is stopped."""
    from dualio.lab.instructions import real_redis

    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    with real_redis.running_server() as server:
        monkeypatch.setenv(real_redis.ADDRESS, f"{server.host}:{server.port}")
        for name in real_redis.choose()[0]:
            assert real_redis.FIGURES[name].run(200, time.process_time) > 0
    assert server.process.poll() is not None


def test_a_redis_peer_not_installed_is_left_out_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real-server figures: a peer whose package is missing is not chosen, and the report
    says why; a figure named alone comes with its floor; dualio's figures are never left out."""
    import importlib.util

    from dualio.lab.instructions import real_redis

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "coredis" else find_spec(name, *args))
    chosen, skipped = real_redis.choose()
    assert skipped == {"coredis": "coredis is not installed"}
    assert "coredis" not in chosen and set(real_redis.DUALIO) <= set(chosen)
    assert real_redis.choose(["coredis"]) == (["redis-raw"], {"coredis": "coredis is not installed"})
    assert real_redis.choose(["redis-sync"]) == (["redis-sync", "redis-raw"], {})
    assert not set(real_redis.GOALS) & set(real_redis.PEERS)
    counts = {name: real_redis.Count(name, 1000.0, (1000.0, 1000.0)) for name in ("redis-raw", "glide-sync")}
    printed = real_redis.report(counts, skipped)
    assert "coredis: not counted, coredis is not installed" in printed
    assert "not gated" in printed
