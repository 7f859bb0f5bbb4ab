"""The goals the lab reports against: measured in the run, never asserted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dualio.lab.results import Cell


@dataclass(frozen=True)
class Goal:
    name: str
    target: str
    measured: str
    met: bool | None  # None: not measured in this run


def _find(cells: Sequence[Cell], scenario: str, case_prefix: str, mode: str) -> Cell | None:
    for cell in cells:
        if (cell.scenario == scenario and cell.case.startswith(case_prefix) and cell.mode == mode
                and not cell.skipped and cell.wall_s):
            return cell
    return None


def _ratio_goal(name: str, target: str, mine: Cell | None, theirs: Cell | None,
                minimum: float, higher_is_better: bool = True) -> Goal:
    if mine is None or theirs is None or not mine.ops_per_s or not theirs.ops_per_s:
        return Goal(name, target, "not measured", None)
    ratio = mine.ops_per_s / theirs.ops_per_s
    met = ratio >= minimum if higher_is_better else ratio <= minimum
    return Goal(name, target, f"{ratio:.2f}× ({mine.ops_per_s:,.0f} vs {theirs.ops_per_s:,.0f} ops/s)",
                met)


def evaluate(cells: Sequence[Cell]) -> list[Goal]:
    goals: list[Goal] = []
    fanouts = sorted({c.total for c in cells if c.scenario == "fanout"})
    if fanouts:
        n = fanouts[-1]
        native = _find(cells, "fanout", f"N={n}", "native-asyncio")
        peer = _find(cells, "fanout", f"N={n}", "asyncio-protocol")
        if native and peer and native.wall_s and peer.wall_s:
            ratio = native.wall_s / peer.wall_s
            goals.append(Goal(f"native fan-out N={n} vs hand-written asyncio", "≤ 1.25×",
                              f"{ratio:.2f}× ({native.wall_s:.3f} s vs {peer.wall_s:.3f} s)",
                              ratio <= 1.25))
        if native and native.wall_s:
            goals.append(Goal(f"native fan-out N={n} vs Y", "≤ 5·Y",
                              f"{native.wall_s / native.delay:.2f}·Y", native.wall_s <= 5 * native.delay))
        pool = _find(cells, "fanout", f"N={n}", "emulated-pool")
        if pool is None:
            pool = next((c for c in sorted(cells, key=lambda c: -c.total)
                         if c.scenario == "fanout" and c.mode == "emulated-pool" and c.ratio), None)
        if pool and pool.ratio:
            goals.append(Goal(f"emulated-pool measured/model ({pool.case})", "within [0.95, 1.15]",
                              f"{pool.ratio:.3f}", 0.95 <= pool.ratio <= 1.15))
    goals.append(_ratio_goal("sync sequential vs raw blocking socket", "≥ 0.9×",
                             _find(cells, "throughput", "sequential", "sync"),
                             _find(cells, "throughput", "sequential", "raw-socket"), 0.9))
    goals.append(_ratio_goal("native concurrent vs hand-written asyncio", "≥ 0.8×",
                             _find(cells, "throughput", "concurrent", "native-asyncio"),
                             _find(cells, "throughput", "concurrent", "asyncio-protocol"), 0.8))
    goals.append(_ratio_goal("uvloop vs asyncio (native concurrent)", "≥ 1.3×",
                             _find(cells, "throughput", "concurrent", "native-uvloop"),
                             _find(cells, "throughput", "concurrent", "native-asyncio"), 1.3))
    baseline = _find(cells, "overhead", "", "asyncio.to_thread")
    sync = _find(cells, "overhead", "", "sync")
    for strategy in ("emulated-pool", "emulated-thread", "emulated-callback"):
        mine = _find(cells, "overhead", "", strategy)
        if mine is None or baseline is None or sync is None:
            goals.append(Goal(f"{strategy} per-call overhead", "≤ asyncio.to_thread's", "not measured", None))
            continue
        assert mine.wall_s and baseline.wall_s and sync.wall_s
        own = (mine.wall_s - sync.wall_s) / mine.total * 1e6
        theirs = (baseline.wall_s - sync.wall_s) / baseline.total * 1e6
        goals.append(Goal(f"{strategy} per-call overhead", "≤ asyncio.to_thread's",
                          f"{own:.0f} µs vs {theirs:.0f} µs", own <= theirs))
    return goals


def print_goals(goals: Sequence[Goal]) -> None:
    print("\nGoals")
    for goal in goals:
        mark = {True: "met   ", False: "MISSED", None: "n/a   "}[goal.met]
        print(f"  [{mark}] {goal.name}: target {goal.target}; measured {goal.measured}")
