"""``dualio bench compare OLD NEW``: what changed between two runs, and whether it is
more than their noise.

Cells are matched by (scenario, case, mode, server). A change is *beyond noise*
when the two runs' spreads (``interval`` in results.json) do not overlap. A cell
*regresses* when its primary metric — ops/s, or wall time for fan-out, echo and
models — got worse beyond noise and by more than ``--fail-above``; any regression
makes the exit status 1.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dualio.lab.bench.redis_scenario import is_peer
from dualio.lab.common.metadata import SCHEMA_VERSION

HIGHER_IS_BETTER = ("ops_per_s", "mb_per_s")
LOWER_IS_BETTER = ("wall_s", "p50_ms", "p99_ms", "client_cpu_us", "server_cpu_us")
WALL_SCENARIOS = ("fanout", "echo", "models")
UNITS = {"ops_per_s": "ops/s", "mb_per_s": "MB/s", "wall_s": "wall s", "p50_ms": "p50 ms",
         "p99_ms": "p99 ms", "client_cpu_us": "cli µs", "server_cpu_us": "srv µs"}
DEFAULT_THRESHOLD = "10%"
WIDTH = 100

Key = tuple[str, str, str, str]


class CompareError(Exception):
    """A one-line reason the two files cannot be compared."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", help="the earlier run's results.json")
    parser.add_argument("new", help="the later run's results.json")
    parser.add_argument("--fail-above", default=DEFAULT_THRESHOLD, metavar="PERCENT",
                        help="exit 1 when a cell's primary metric got worse by more than this, "
                             "beyond noise (default %(default)s)")


def primary_metric(scenario: str) -> str:
    return "wall_s" if scenario in WALL_SCENARIOS else "ops_per_s"


def threshold(text: str) -> float:
    """``10%`` or ``10`` -> 10.0."""
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise CompareError(f"--fail-above must be a percentage like 10%, not {text!r}") from None
    if not 0 <= value < math.inf:
        raise CompareError(f"--fail-above must be >= 0%, not {text!r}")
    return value


def load(path: Path) -> dict[str, Any]:
    """A results.json of this schema version, or a CompareError saying why not."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CompareError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CompareError(f"cannot read {path}: {reason}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CompareError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise CompareError(f"{path} is not a dualio bench results.json (it has no schema_version)")
    version = data["schema_version"]
    if version != SCHEMA_VERSION:
        raise CompareError(f"{path} has schema_version {version!r}; this dualio reads "
                           f"{SCHEMA_VERSION} (compare runs of the same lab version)")
    cells = data.get("cells")
    if not isinstance(cells, list) or not all(_is_cell(c) for c in cells):
        raise CompareError(f"{path} has no well-formed cells list")
    if not isinstance(data.get("meta", {}), dict):
        raise CompareError(f"{path} has a malformed meta block")
    return data


def _is_cell(cell: Any) -> bool:
    return isinstance(cell, dict) and all(isinstance(cell.get(k), str)
                                          for k in ("scenario", "case", "mode", "server"))


def key(cell: dict[str, Any]) -> Key:
    return cell["scenario"], cell["case"], cell["mode"], cell["server"]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _interval(cell: dict[str, Any], metric: str, middle: float) -> tuple[float, float]:
    """The cell's spread of ``metric``; just its median for a run of one round."""
    found = (cell.get("interval") or {}).get(metric)
    if isinstance(found, list) and len(found) == 2:
        low, high = (_number(v) for v in found)
        if low is not None and high is not None:
            return min(low, middle), max(high, middle)
    return middle, middle


@dataclass(frozen=True)
class Change:
    key: Key
    metric: str
    old: float
    new: float
    old_interval: tuple[float, float]
    new_interval: tuple[float, float]

    @property
    def percent(self) -> float | None:
        return None if self.old == 0 else (self.new - self.old) / abs(self.old) * 100

    @property
    def beyond_noise(self) -> bool:
        """The two runs' spreads do not overlap."""
        return self.new_interval[1] < self.old_interval[0] or self.new_interval[0] > self.old_interval[1]

    @property
    def worse(self) -> bool:
        return self.new < self.old if self.metric in HIGHER_IS_BETTER else self.new > self.old

    def regression(self, limit: float) -> bool:
        percent = self.percent
        return self.beyond_noise and self.worse and percent is not None and abs(percent) > limit


def broken(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """NEW's cells that lost or misrouted calls where OLD's did not (or OLD lacks them):
    a regression whatever their speed. A peer's Redis cells are findings about that
    client, not regressions of dualio's."""
    before = {key(c): c for c in old["cells"]}
    found = []
    for cell in new["cells"]:
        if cell.get("skipped") or not (cell.get("errors") or cell.get("wrong")) or is_peer(cell):
            continue
        earlier = before.get(key(cell))
        if earlier is None or not (earlier.get("errors") or earlier.get("wrong")):
            found.append(cell)
    return found


def changes(old: dict[str, Any], new: dict[str, Any], metrics: Sequence[str] | None = None) -> list[Change]:
    """Each metric of each cell the two runs share (both measured it), in NEW's order.

    ``metrics`` None: each cell's primary metric only."""
    before = {key(c): c for c in old["cells"]}
    found: list[Change] = []
    for cell in new["cells"]:
        earlier = before.get(key(cell))
        if earlier is None or cell.get("skipped") or earlier.get("skipped"):
            continue
        for metric in metrics or [primary_metric(cell["scenario"])]:
            a, b = _number(earlier.get(metric)), _number(cell.get(metric))
            if a is None or b is None:
                continue
            found.append(Change(key(cell), metric, a, b, _interval(earlier, metric, a),
                                _interval(cell, metric, b)))
    return found


def _value(middle: float, interval: tuple[float, float]) -> str:
    text = f"{middle:,.0f}" if abs(middle) >= 100 else f"{middle:.3f}"
    if middle == 0 or interval[0] == interval[1]:
        return text
    return f"{text} ±{(interval[1] - interval[0]) / 2 / abs(middle) * 100:.0f}%"


def _label(cell_key: Key) -> str:
    scenario, case, mode, server = cell_key
    return f"{scenario} {case} {mode} ({server})"


def _machine(meta: dict[str, Any]) -> tuple[Any, Any]:
    machine = meta.get("machine") or {}
    return machine.get("cpu_model"), machine.get("logical_cpus")


def report_lines(old: dict[str, Any], new: dict[str, Any], limit: float) -> tuple[list[str], int]:
    """The comparison as lines of at most WIDTH characters, and how many cells regressed."""
    primary = changes(old, new)
    lines = [f"{'cell':<44} {'metric':<6} {'old':>13} {'new':>13} {'change':>8}  verdict"]
    regressions = 0
    for change in primary:
        percent = change.percent
        verdict = ""
        if change.regression(limit):
            verdict, regressions = "REGRESSION", regressions + 1
        elif change.beyond_noise:
            verdict = "worse" if change.worse else "better"
        change_text = "-" if percent is None else f"{percent:+.1f}%"
        lines.append(f"{_label(change.key)[:44]:<44} {UNITS[change.metric]:<6} "
                     f"{_value(change.old, change.old_interval):>13} "
                     f"{_value(change.new, change.new_interval):>13} {change_text:>8}  {verdict}")
    others = [c for c in changes(old, new, HIGHER_IS_BETTER + LOWER_IS_BETTER)
              if c.metric != primary_metric(c.key[0]) and c.regression(limit)]
    if others:
        lines += ["", f"other metrics worse beyond noise and {limit:g}% (these do not fail the comparison):"]
        for change in others:
            lines.append(f"  {_label(change.key)[:60]}: {UNITS[change.metric]} "
                         f"{_value(change.old, change.old_interval)} -> "
                         f"{_value(change.new, change.new_interval)} ({change.percent or 0:+.0f}%)")
    old_keys, new_keys = {key(c) for c in old["cells"]}, {key(c) for c in new["cells"]}
    for name, only in (("OLD", old_keys - new_keys), ("NEW", new_keys - old_keys)):
        if only:
            lines.append(f"{len(only)} cells only in {name}: "
                         + ", ".join(_label(k) for k in sorted(only))[:WIDTH - 24])
    lines += _goal_lines(old, new)
    return [line[:WIDTH] for line in lines], regressions


def _goal_lines(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    before = {g.get("name"): g.get("verdict") for g in old.get("goals") or [] if isinstance(g, dict)}
    moved = [(g.get("name"), before[g.get("name")], g.get("verdict")) for g in new.get("goals") or []
             if isinstance(g, dict) and g.get("name") in before and before[g.get("name")] != g.get("verdict")]
    if not moved:
        return []
    return ["", "goals whose verdict changed:", *(f"  {name}: {was} -> {now}" for name, was, now in moved)]


def run(args: argparse.Namespace) -> int:
    try:
        limit = threshold(args.fail_above)
        old, new = load(Path(args.old)), load(Path(args.new))
    except CompareError as exc:
        print(f"dualio bench compare: {exc}", file=sys.stderr)
        return 2
    machines = _machine(old.get("meta", {})), _machine(new.get("meta", {}))
    if machines[0] != machines[1]:
        (model_a, cpus_a), (model_b, cpus_b) = machines
        print(f"dualio bench compare: warning: the runs are from different machines ({model_a}, "
              f"{cpus_a} CPUs vs {model_b}, {cpus_b} CPUs); a change may be the machine's", file=sys.stderr)
    for name, data in (("OLD", old), ("NEW", new)):
        if data.get("meta", {}).get("partial"):
            print(f"{name} is a partial run (interrupted): only its finished cells are compared")
    lines, regressions = report_lines(old, new, limit)
    print(f"OLD {args.old}\nNEW {args.new}\n")
    print("\n".join(lines))
    for cell in broken(old, new):
        print(f"LOST OR MISROUTED CALLS in NEW: {' '.join(key(cell))} "
              f"(errors {cell.get('errors')}, wrong {cell.get('wrong')})")
        regressions += 1
    if regressions:
        print(f"\n{regressions} cells regressed beyond noise and by more than {limit:g}%")
        return 1
    print(f"\nno cell regressed beyond noise and by more than {limit:g}%")
    return 0
