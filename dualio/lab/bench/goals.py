"""The goals the lab reports against: measured in the run, never asserted.

Each goal is a ratio (or a difference) between two cells of the same run, computed
round by round — both cells were measured in the same round, so drift hits them
alike — then summarised like a cell: the median of the rounds and a spread around
it (see :mod:`dualio.lab.bench.summary`). The verdict is taken on the median, unless the
spread straddles the target: then the run cannot tell, and says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from dualio.lab.bench import redis_scenario, summary
from dualio.lab.bench.redis_clients import redis_modes
from dualio.lab.bench.results import Cell

Verdict = Literal["met", "missed", "inconclusive", "not measured"]
Direction = Literal["at least", "at most", "within"]


@dataclass(frozen=True)
class Goal:
    name: str
    direction: Direction
    target: float  # the bound; for "within", the lower one
    unit: str  # "×", "·Y", "µs"
    median: float | None = None  # None: not measured in this run
    low: float | None = None
    high: float | None = None
    verdict: Verdict = "not measured"
    target_high: float | None = None  # the upper bound of a "within" goal
    rounds: int = 0
    detail: str = ""  # the medians the ratio came from, in words

    @property
    def target_text(self) -> str:
        if self.direction == "within":
            return f"within [{self.target:g}, {self.target_high:g}]{self.unit}"
        sign = "≥" if self.direction == "at least" else "≤"
        return f"{sign} {self.target:g}{self.unit}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def judge(direction: Direction, target: float, values: Sequence[float],
          target_high: float | None = None) -> tuple[float, float, float, Verdict]:
    """(median, low, high, verdict) of per-round ``values`` against the target."""
    middle = summary.median(values)
    low, high = summary.spread(values)
    bounds = [target] if direction != "within" else [target, target_high or target]
    if any(summary.straddles((low, high), bound) for bound in bounds):
        return middle, low, high, "inconclusive"
    if direction == "at least":
        met = middle >= target
    elif direction == "at most":
        met = middle <= target
    else:
        met = target <= middle <= (target_high if target_high is not None else target)
    return middle, low, high, "met" if met else "missed"


def measured(name: str, direction: Direction, target: float, unit: str, values: Sequence[float],
             detail: str = "", target_high: float | None = None) -> Goal:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return Goal(name, direction, target, unit, target_high=target_high)
    middle, low, high, verdict = judge(direction, target, finite, target_high)
    return Goal(name, direction, target, unit, middle, low, high, verdict, target_high, len(finite),
                detail)


def _find(cells: Sequence[Cell], scenario: str, case_prefix: str, mode: str,
          server: str | None = None) -> Cell | None:
    for cell in cells:
        if (cell.scenario == scenario and cell.case.startswith(case_prefix) and cell.mode == mode
                and (server is None or cell.server == server) and not cell.skipped and cell.wall_s):
            return cell
    return None


def per_round(metric: str, combine: Callable[..., float], *cells: Cell) -> list[float]:
    """``combine`` applied round by round to the cells' values of ``metric``: to the
    values measured in the same round. A round in which any of the cells has no value
    (it failed in that round) is left out."""
    columns = [cell.by_round(metric) for cell in cells]
    shared = set(columns[0]).intersection(*columns[1:])
    results = []
    for index in sorted(shared):
        try:
            results.append(combine(*(column[index] for column in columns)))
        except ZeroDivisionError:
            continue
    return results


def _ratio_goal(name: str, target: float, mine: Cell | None, theirs: Cell | None) -> Goal:
    if mine is None or theirs is None or not mine.ops_per_s or not theirs.ops_per_s:
        return Goal(name, "at least", target, "×")
    ratios = per_round("ops_per_s", lambda a, b: a / b, mine, theirs)
    return measured(name, "at least", target, "×", ratios,
                    f"{mine.ops_per_s:,.0f} vs {theirs.ops_per_s:,.0f} ops/s")


def _time_goal(name: str, target: float, mine: Cell | None, theirs: Cell | None) -> Goal:
    """Wall time of ``mine`` over that of ``theirs``, at most ``target``."""
    if mine is None or theirs is None or not mine.wall_s or not theirs.wall_s:
        return Goal(name, "at most", target, "×")
    return measured(name, "at most", target, "×", per_round("wall_s", lambda a, b: a / b, mine, theirs),
                    f"{mine.wall_s:.3f} s vs {theirs.wall_s:.3f} s")


def _setup_goals(cells: Sequence[Cell]) -> list[Goal]:
    """Connection set-up, in client CPU per connection, against a hand-written asyncio client."""
    goals = []
    for mode, peer, target in (("native-asyncio", "asyncio-protocol", 1.15),):
        name = f"connection set-up client CPU, {mode} vs {peer}"
        mine, theirs = _find(cells, "setup", "", mode), _find(cells, "setup", "", peer)
        if mine is None or theirs is None or not mine.client_cpu_us or not theirs.client_cpu_us:
            goals.append(Goal(name, "at most", target, "×"))
            continue
        goals.append(measured(name, "at most", target, "×",
                              per_round("client_cpu_us", lambda a, b: a / b, mine, theirs),
                              f"{mine.client_cpu_us:.0f} µs vs {theirs.client_cpu_us:.0f} µs"))
    return goals


def _server_goals(cells: Sequence[Cell]) -> list[Goal]:
    """The reference server's CPU per request against the lab's minimal server."""
    goals = []
    for case in ("sequential", "concurrent"):
        name = f"server CPU per request vs minimal server ({case})"
        mine = next((c for c in cells if c.scenario == "server" and c.case.startswith(case)
                     and c.server == "async"), None)
        floor = next((c for c in cells if c.scenario == "server" and c.case.startswith(case)
                      and c.server == "floor"), None)
        if mine is None or floor is None or not mine.server_cpu_us or not floor.server_cpu_us:
            goals.append(Goal(name, "at most", 1.3, "×"))
            continue
        goals.append(measured(name, "at most", 1.3, "×",
                              per_round("server_cpu_us", lambda a, b: a / b, mine, floor),
                              f"{mine.server_cpu_us:.1f} µs vs {floor.server_cpu_us:.1f} µs"))
    return goals


def _portal_goals(cells: Sequence[Cell]) -> list[Goal]:
    """The portal against the libraries users know for its architecture, and at scale."""
    portal = _find(cells, "throughput", "sequential", "portal")
    goals = [
        _time_goal(f"portal sequential time vs {anchor}", 0.8, portal,
                   _find(cells, "throughput", "sequential", anchor))
        for anchor in ("anyio-portal", "synchronicity")
    ]
    name = "portal-threads fan-out measured/model"
    fanned = sorted((c for c in cells if c.scenario == "fanout" and c.mode == "portal-threads"
                     and c.ratio and not c.skipped and c.total >= 1000), key=lambda c: c.total)
    if fanned:  # at N = 1,000: at 10,000 the GIL, not the portal, sets the pace (architecture §8.2)
        cell = fanned[0]
        goals.append(measured(f"{name} ({cell.case})", "at most", 1.5, "×", cell.values("ratio"),
                              f"{cell.wall_s or 0:.3f} s vs {cell.model_s or 0:.3f} s"))
    else:
        goals.append(Goal(f"{name} (N = 1000)", "at most", 1.5, "×"))
    return goals


def _fanout_goals(cells: Sequence[Cell]) -> list[Goal]:
    goals: list[Goal] = []
    fanouts = sorted({c.total for c in cells if c.scenario == "fanout"})
    if not fanouts:
        return goals
    n = fanouts[-1]
    native = _find(cells, "fanout", f"N={n}", "native-asyncio")
    peer = _find(cells, "fanout", f"N={n}", "asyncio-protocol")
    name = f"native fan-out N={n} vs hand-written asyncio"
    if native and peer and native.wall_s and peer.wall_s:
        goals.append(measured(name, "at most", 1.25, "×",
                              per_round("wall_s", lambda a, b: a / b, native, peer),
                              f"{native.wall_s:.3f} s vs {peer.wall_s:.3f} s"))
    else:
        goals.append(Goal(name, "at most", 1.25, "×"))
    name = f"native fan-out N={n} vs Y"
    if native and native.wall_s and native.delay:
        delay = native.delay
        goals.append(measured(name, "at most", 5.0, "·Y",
                              per_round("wall_s", lambda a: a / delay, native),
                              f"{native.wall_s:.3f} s, Y = {delay:g} s"))
    else:
        goals.append(Goal(name, "at most", 5.0, "·Y"))
    pool = _find(cells, "fanout", f"N={n}", "emulated-pool")
    if pool is None or not pool.ratio:
        pool = next((c for c in sorted(cells, key=lambda c: -c.total)
                     if c.scenario == "fanout" and c.mode == "emulated-pool" and c.ratio
                     and not c.skipped), None)
    if pool and pool.ratio:
        goals.append(measured(f"emulated-pool measured/model ({pool.case})", "within", 0.95, "",
                              pool.values("ratio"), f"{pool.wall_s or 0:.3f} s vs {pool.model_s or 0:.3f} s",
                              target_high=1.15))
    return goals


def _overhead_goals(cells: Sequence[Cell]) -> list[Goal]:
    """Per-call overhead above the sync face, each emulation strategy against asyncio.to_thread's:
    (mine − sync) − (to_thread − sync) in µs per call, at most 0."""
    goals: list[Goal] = []
    baseline = _find(cells, "overhead", "", "asyncio.to_thread")
    sync = _find(cells, "overhead", "", "sync")
    for strategy in ("emulated-pool", "emulated-thread", "emulated-callback"):
        name = f"{strategy} overhead per call − asyncio.to_thread's"
        mine = _find(cells, "overhead", "", strategy)
        if mine is None or baseline is None or sync is None:
            goals.append(Goal(name, "at most", 0.0, " µs"))
            continue
        def excess(own: float, theirs: float, plain: float, calls: int = mine.total,
                   peer_calls: int = baseline.total) -> float:
            return ((own - plain) / calls - (theirs - plain) / peer_calls) * 1e6

        differences = per_round("wall_s", excess, mine, baseline, sync)
        assert mine.wall_s and baseline.wall_s and sync.wall_s
        own = (mine.wall_s - sync.wall_s) / mine.total * 1e6
        theirs = (baseline.wall_s - sync.wall_s) / baseline.total * 1e6
        goals.append(measured(name, "at most", 0.0, " µs", differences,
                              f"{own:.0f} µs vs {theirs:.0f} µs"))
    return goals


def _blob_goals(cells: Sequence[Cell]) -> list[Goal]:
    """1 MiB answers on the reference server, against a raw socket receiving each into a
    buffer of its own, one at a time; every byte checked on both sides."""
    raw = _find(cells, "blob", "", "raw-socket", "async")
    return [
        _ratio_goal("blob(1 MiB) sync vs raw blocking socket, 1 in flight", 0.8,
                    _find(cells, "blob", "", "sync", "async"), raw),
        _ratio_goal("blob(1 MiB) 50 threads on one Client vs raw blocking socket", 0.7,
                    _find(cells, "blob", "", "sync-shared", "async"), raw),
    ]


REDIS_FANOUT_BOUND = 1.5
"""A fan-out of coroutines or threads within this many times its model Y + N·c or F + N·c."""
REDIS_POOL_BAND = (0.95, 1.15)
"""A fan-out bounded by a pool of W workers within this band of its model ceil(N/W)·Y."""
_REDIS_MODES = {mode.name: mode for mode in redis_modes()}
REDIS_SYNC_PEERS = tuple(m.name for m in _REDIS_MODES.values() if m.peer and m.face == "sync")
REDIS_ASYNC_PEERS = tuple(m.name for m in _REDIS_MODES.values() if m.peer and m.face == "async")


def _redis(cells: Sequence[Cell], case: str, mode: str) -> Cell | None:
    return _find(cells, redis_scenario.SCENARIO, case, mode, redis_scenario.SERVER)


def _redis_goals(cells: Sequence[Cell]) -> list[Goal]:
    """dualio's Redis faces against the peers on the same redis-server (the Redis scenario)."""
    goals = []
    for mine, peers in (("sync", REDIS_SYNC_PEERS), ("native-asyncio", REDIS_ASYNC_PEERS)):
        for peer in peers:
            goals.append(_ratio_goal(f"redis sequential GET, {mine} vs {peer}", 1.0,
                                     _redis(cells, redis_scenario.SEQUENTIAL, mine),
                                     _redis(cells, redis_scenario.SEQUENTIAL, peer)))
    for peer, target in (("redis-py-asyncio", 2.0), ("glide-async", 1.0)):
        goals.append(_ratio_goal(f"redis 100 GETs in flight, native-asyncio vs {peer}", target,
                                 _redis(cells, redis_scenario.CONCURRENT, "native-asyncio"),
                                 _redis(cells, redis_scenario.CONCURRENT, peer)))
    goals += _redis_fanout_goals(cells)
    goals += _redis_storm_goals(cells)
    return goals


def _redis_fanout_goals(cells: Sequence[Cell]) -> list[Goal]:
    """Each dualio mode's largest fan-out the run measured, against its model (the
    peers' ratios are in the table: where they fall is a finding about them)."""
    largest: dict[str, Cell] = {}
    for cell in cells:
        mode = _REDIS_MODES.get(cell.mode)
        if (cell.scenario == redis_scenario.SCENARIO and cell.case.startswith(redis_scenario.FANOUT)
                and not cell.skipped and mode is not None and mode.dualio and mode.model
                and cell.total >= largest.get(cell.mode, cell).total):
            largest[cell.mode] = cell
    goals = []
    for name, cell in largest.items():
        title = f"redis fan-out {cell.case} {name} measured/model"
        detail = f"{cell.wall_s or 0:.3f} s vs {cell.model_s or 0:.3f} s"
        if _REDIS_MODES[name].model == "pool":
            low, high = REDIS_POOL_BAND
            goals.append(measured(title, "within", low, "", cell.values("ratio"), detail, target_high=high))
        else:
            goals.append(measured(title, "at most", REDIS_FANOUT_BOUND, "×", cell.values("ratio"), detail))
    return goals


def _redis_storm_goals(cells: Sequence[Cell]) -> list[Goal]:
    """Every dualio mode through the cancel storm: no wrong answer, no error, and no
    connection opened again, in any round (the value is the worst round's connections
    opened again, plus the wrong answers and errors of all rounds)."""
    goals = []
    for cell in cells:
        mode = _REDIS_MODES.get(cell.mode)
        if (cell.scenario != redis_scenario.SCENARIO or not cell.case.startswith(redis_scenario.STORM)
                or cell.skipped or mode is None or not mode.dualio):
            continue
        title = f"redis cancel storm {cell.mode}: wrong answers + connections opened again"
        values = cell.values("new_connections")
        if not values:
            goals.append(Goal(title, "at most", 0.0, ""))
            continue
        worst = [max(values) + cell.wrong + cell.errors]
        goals.append(measured(title, "at most", 0.0, "", worst,
                              f"wrong {cell.wrong}, errors {cell.errors}, connections opened again "
                              f"{', '.join(f'{v:.0f}' for v in values)} by round"))
    return goals


def _throughput_goals(cells: Sequence[Cell]) -> list[Goal]:
    return [
        _ratio_goal("sync sequential vs raw blocking socket", 0.9,
                    _find(cells, "throughput", "sequential", "sync"),
                    _find(cells, "throughput", "sequential", "raw-socket")),
        _ratio_goal("native concurrent vs hand-written asyncio", 0.8,
                    _find(cells, "throughput", "concurrent", "native-asyncio"),
                    _find(cells, "throughput", "concurrent", "asyncio-protocol")),
        _ratio_goal("native-trio concurrent vs hand-written trio", 0.85,
                    _find(cells, "throughput", "concurrent", "native-trio"),
                    _find(cells, "throughput", "concurrent", "trio-peer")),
    ]


_GOALS: tuple[tuple[tuple[str, ...], Callable[[Sequence[Cell]], list[Goal]]], ...] = (
    (("fanout",), _fanout_goals),
    (("throughput",), _throughput_goals),
    (("overhead",), _overhead_goals),
    (("throughput", "fanout"), _portal_goals),
    (("setup",), _setup_goals),
    (("server",), _server_goals),
    (("blob",), _blob_goals),
    (("redis",), _redis_goals),
)
"""Each group of goals and the scenarios it is judged on: a run that measured none of
them states none of its goals."""


def evaluate(cells: Sequence[Cell]) -> list[Goal]:
    present = {cell.scenario for cell in cells}
    goals: list[Goal] = []
    for scenarios, group in _GOALS:
        if present.intersection(scenarios):
            goals += group(cells)
    return goals


def _number(value: float, unit: str) -> str:
    size = abs(value)
    text = f"{value:,.0f}" if size >= 100 else f"{value:.1f}" if size >= 10 else f"{value:.2f}"
    return f"{text}{unit}"


def lines(goals: Sequence[Goal], width: int = 100) -> list[str]:
    """The goals as text no wider than ``width``: verdict and name, then median [low, high] and
    target on the same line, or on the next one where they do not fit."""
    out = []
    for goal in goals:
        mark = "MISSED" if goal.verdict == "missed" else goal.verdict
        head = f"  {mark:<12} {goal.name}"
        if goal.median is None or goal.low is None or goal.high is None:
            tail = f"target {goal.target_text}"
        else:
            tail = (f"{_number(goal.median, goal.unit)} [{_number(goal.low, '')}, "
                    f"{_number(goal.high, '')}], target {goal.target_text}")
        detailed = f"{tail} ({goal.detail})" if goal.detail else tail
        if len(head) + 2 + len(detailed) <= width:
            out.append(f"{head}: {detailed}")
        elif len(head) + 2 + len(tail) <= width:
            out.append(f"{head}: {tail}")
        else:
            out += [head[:width], (" " * 15 + detailed)[:width]]
    return out


def print_goals(goals: Sequence[Goal], rounds: int) -> None:
    print(f"\nGoals: median of {rounds} rounds [{summary.method(rounds)}]")
    print("  inconclusive: the spread straddles the target")
    for line in lines(goals):
        print(line)
