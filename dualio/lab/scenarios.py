"""The rows of the lab: which workloads each mode is measured on."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dualio.lab.drivers import Workload
from dualio.lab.modes import Mode
from dualio.lab.results import Cell, pool_model

SCENARIOS = ("fanout", "throughput", "overhead")


@dataclass(frozen=True)
class Plan:
    """How big a run is: ``--quick`` or full."""

    fanout_ns: tuple[int, ...]
    fanout_delay: float
    budget_s: float  # cells predicted to take longer are skipped, with a note
    sequential_calls: int
    concurrent_calls: int
    concurrency: int
    overhead_calls: int

    @classmethod
    def quick(cls) -> Plan:
        return cls((10, 100, 1000), 0.05, 6.0, 1000, 5000, 100, 1000)

    @classmethod
    def full(cls) -> Plan:
        return cls((10, 100, 1000, 10_000), 0.1, 60.0, 5000, 50_000, 100, 5000)


@dataclass(frozen=True)
class Job:
    cell: Cell
    mode: Mode
    work: Workload


def _predicted(mode: Mode, work: Workload) -> float:
    if mode.family in ("sync", "raw-socket"):
        return work.total * work.delay
    if mode.workers:
        return pool_model(work.total, mode.workers, work.delay)
    return work.delay


def fanout(plan: Plan, modes: list[Mode]) -> Iterator[Job]:
    y = plan.fanout_delay
    for n in plan.fanout_ns:
        for mode in modes:
            if mode.family == "raw-socket":
                continue
            work = Workload(n, n, y, timeout=max(120.0, 3 * _predicted(mode, Workload(n, n, y))))
            cell = Cell("fanout", f"N={n}", mode.name, n, n, y)
            if mode.workers:
                cell.model_s = pool_model(n, mode.workers, y)
            elif mode.family == "sync":
                cell.model_s = n * y
            yield _budgeted(Job(cell, mode, work), plan)


def throughput(plan: Plan, modes: list[Mode]) -> Iterator[Job]:
    for mode in modes:
        work = Workload(plan.sequential_calls, 1, 0.0)
        yield Job(Cell("throughput", "sequential", mode.name, work.total, 1, 0.0), mode, work)
    for mode in modes:
        if mode.family in ("sync", "raw-socket"):
            continue
        c = plan.concurrency
        work = Workload(plan.concurrent_calls, c, 0.0)
        if mode.family == "threads":  # one connection per thread: fewer calls, same concurrency
            work = Workload(plan.concurrent_calls // 5, c, 0.0)
        yield Job(Cell("throughput", f"concurrent c={c}", mode.name, work.total, c, 0.0), mode, work)


def overhead(plan: Plan, modes: list[Mode]) -> Iterator[Job]:
    for mode in modes:
        if mode.family not in ("sync", "emulated", "to_thread"):
            continue
        work = Workload(plan.overhead_calls, 1, 0.0)
        yield Job(Cell("overhead", "zero-delay call", mode.name, work.total, 1, 0.0), mode, work)


def _budgeted(job: Job, plan: Plan) -> Job:
    predicted = _predicted(job.mode, job.work)
    if predicted > plan.budget_s:
        job.cell.skipped = True
        job.cell.note = f"skipped: predicted {predicted:.0f} s > budget {plan.budget_s:.0f} s"
    return job


def native_model(n: int, delay: float, per_call_s: float) -> float:
    """Y + N·c for coroutines: every call waits in parallel, CPU cost c adds up."""
    return delay + n * per_call_s
