"""One measured cell of the lab's tables, and the checks that make it trustworthy."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from dualio.lab.drivers import Outcome, Workload
from transports.wire.methods import ServerStats


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
    peak_rss_mb: float | None = None
    errors: int = 0
    wrong: int = 0
    limited: int = 0
    mb_per_s: float | None = None
    kb_per_conn: float | None = None
    model_s: float | None = None
    ratio: float | None = None
    note: str = ""
    skipped: bool = False

    @property
    def lost(self) -> bool:
        return not self.skipped and (self.errors > 0 or self.wrong > 0)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
    cell.wall_s = outcome.wall
    cell.ops_per_s = len(outcome.latencies) / outcome.wall if outcome.wall > 0 else None
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
    if payload_bytes and outcome.wall > 0:
        cell.mb_per_s = payload_bytes * len(outcome.latencies) / outcome.wall / 1e6
    if connections and rss > baseline_rss:
        cell.kb_per_conn = (rss - baseline_rss) / connections / 1024
    if outcome.first_error:
        cell.note = outcome.first_error
    elif outcome.limit:
        cell.note = f"LIMIT: {outcome.limit}"
    if cell.model_s:
        cell.ratio = outcome.wall / cell.model_s
    return cell


def check_server(cell: Cell, before: ServerStats, after: ServerStats, work: Workload) -> None:
    """The server must have served exactly the calls made (plus the ``stats`` call before)."""
    served = after.requests_served - before.requests_served - 1
    expected = work.total - cell.errors - cell.limited
    problems = []
    if served != expected:
        problems.append(f"server served {served} calls, client expected {expected}")
    if after.errors != before.errors:
        problems.append(f"server counted {after.errors - before.errors} errors")
    if problems:
        cell.errors += max(1, abs(expected - served))
        cell.note = "; ".join(filter(None, [cell.note, *problems]))
