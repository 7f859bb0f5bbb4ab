"""One measured cell of the lab's tables, and the checks that make it trustworthy."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from dualio.lab.bench import summary
from dualio.lab.bench.workloads import Outcome, Workload
from dualio_transports.dualio_protocol.methods import ServerStats

# The numeric fields measured once per round; a cell holds their median over its rounds.
METRICS = (
    "wall_s", "ops_per_s", "p50_ms", "p99_ms", "client_cpu_us", "server_cpu_us", "peak_threads",
    "peak_rss_mb", "server_rss_mb", "mb_per_s", "kb_per_conn", "model_s", "ratio", "new_connections",
)
# Counts of calls that went wrong: a cell holds their sum over its rounds.
COUNTS = ("errors", "wrong", "limited")


@dataclass
class Cell:
    scenario: str
    case: str  # e.g. "N=1000", "sequential", "concurrent"
    mode: str
    server: str  # the server model measured against: async, threaded, or external
    total: int
    inflight: int
    delay: float
    wall_s: float | None = None
    ops_per_s: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    client_cpu_us: float | None = None  # the lab process's CPU per call (the client's own work)
    server_cpu_us: float | None = None  # the server process's CPU per call (None: not ours to read)
    peak_threads: int | None = None
    peak_rss_mb: float | None = None  # the lab (client) process's peak resident memory
    server_rss_mb: float | None = None  # the server process's peak resident memory in the cell
    errors: int = 0
    wrong: int = 0
    limited: int = 0
    mb_per_s: float | None = None
    kb_per_conn: float | None = None
    model_s: float | None = None
    ratio: float | None = None
    new_connections: float | None = None  # connections a client opened again (the cancel storm)
    note: str = ""
    skipped: bool = False
    rounds: int = 0  # rounds measured; each numeric metric above is their median
    samples: dict[str, list[float]] = field(default_factory=dict)  # metric -> one value per round
    sampled: dict[str, list[int]] = field(default_factory=dict)  # metric -> the rounds they are from
    interval: dict[str, tuple[float, float]] = field(default_factory=dict)  # metric -> (low, high)

    @property
    def lost(self) -> bool:
        return not self.skipped and (self.errors > 0 or self.wrong > 0)

    def values(self, metric: str) -> list[float]:
        """The per-round values of ``metric``, or its one value for a cell without samples."""
        if metric in self.samples:
            return self.samples[metric]
        value = getattr(self, metric)
        return [] if value is None else [value]

    def by_round(self, metric: str) -> dict[int, float]:
        """:meth:`values` keyed by the round each came from (0 first); a round that
        failed before measuring ``metric`` has no key."""
        values = self.values(metric)
        return dict(zip(self.sampled.get(metric, range(len(values))), values, strict=False))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["interval"] = {metric: list(pair) for metric, pair in self.interval.items()}
        return data


def summarise(cell: Cell, rounds: Sequence[Cell]) -> Cell:
    """Fill ``cell`` from its rounds: the median and spread of each metric, the sum of each count.

    A round that failed before measuring a metric leaves no value for it, so a sample
    list may be shorter than ``rounds``.
    """
    cell.rounds = len(rounds)
    cell.samples, cell.sampled, cell.interval = {}, {}, {}
    for metric in METRICS:
        measured = [(i, v) for i, v in enumerate(getattr(r, metric) for r in rounds) if v is not None]
        values = [v for _, v in measured]
        if not values:
            setattr(cell, metric, None)
            continue
        middle = summary.median(values)
        setattr(cell, metric, round(middle) if metric == "peak_threads" else middle)
        cell.samples[metric] = values
        cell.sampled[metric] = [i for i, _ in measured]
        cell.interval[metric] = summary.spread(values)
    for count in COUNTS:
        setattr(cell, count, sum(getattr(r, count) for r in rounds))
    notes = list(dict.fromkeys(r.note for r in rounds if r.note))
    if notes:
        cell.note = "; ".join(notes)
    return cell


def percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def pool_model(total: int, workers: int, delay: float) -> float:
    """N calls of Y seconds through W workers that each hold a call for its round trip."""
    return math.ceil(total / workers) * delay


def fill(cell: Cell, outcome: Outcome, threads: int, rss: int, baseline_rss: int = 0,
         payload_bytes: int = 0, connections: int = 0) -> Cell:
    measured = outcome.wall > 0  # no clock ran: every call was stopped before the first began
    cell.wall_s = outcome.wall if measured else None
    cell.ops_per_s = len(outcome.latencies) / outcome.wall if measured else None
    p50 = percentile(outcome.latencies, 0.5)
    p99 = percentile(outcome.latencies, 0.99)
    cell.p50_ms = None if p50 is None else p50 * 1e3
    cell.p99_ms = None if p99 is None else p99 * 1e3
    if outcome.latencies and outcome.cpu > 0:
        cell.client_cpu_us = outcome.cpu / len(outcome.latencies) * 1e6
    cell.peak_threads = threads
    cell.peak_rss_mb = rss / 2**20
    cell.errors = outcome.errors
    cell.wrong = outcome.wrong
    cell.limited = outcome.limited
    if payload_bytes and measured:
        cell.mb_per_s = payload_bytes * len(outcome.latencies) / outcome.wall / 1e6
    if connections and rss > baseline_rss:
        cell.kb_per_conn = (rss - baseline_rss) / connections / 1024
    if outcome.first_error:
        cell.note = outcome.first_error
    elif outcome.limit:
        cell.note = f"LIMIT: {outcome.limit}"
    if cell.model_s and measured:
        cell.ratio = outcome.wall / cell.model_s
    return cell


def check_server(cell: Cell, before: ServerStats, after: ServerStats, work: Workload) -> None:
    """The server must have served every call answered (plus the ``stats`` call before),
    and at most the calls made: one that failed after its request left (its client gave
    up waiting) may have been served too. A call stopped by a limit may have left a
    connection the server ended without an answer, which it counts as an error."""
    served = after.requests_served - before.requests_served - 1
    expected = work.total - cell.errors - cell.limited
    problems = []
    if not expected <= served <= work.total:
        problems.append(f"server served {served} calls, client expected {expected}"
                        + (f" to {work.total}" if expected < work.total else ""))
    server_errors = after.errors - before.errors
    if not 0 <= server_errors <= cell.limited:
        problems.append(f"server counted {server_errors} errors")
    if problems:
        cell.errors += max(1, abs(expected - served))
        cell.note = "; ".join(filter(None, [cell.note, *problems]))
