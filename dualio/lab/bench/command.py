"""``dualio bench``: run the lab's scenarios against the reference server, K rounds each.

Round r measures every cell once, in the same order, before round r + 1 starts, so
drift on the machine (a neighbour's load, a warming CPU) hits every mode alike. A
cell keeps the median of its rounds and a spread around it (:mod:`dualio.lab.bench.summary`).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

import anyio

from dualio import AsyncClient
from dualio.lab.bench import (
    charts,
    concurrency_models,
    redis_clients,
    redis_scenario,
    report,
    server_setups,
    summary,
)
from dualio.lab.bench.goals import evaluate, print_goals
from dualio.lab.bench.modes import THREAD_FLOOR, Mode, all_modes
from dualio.lab.bench.operations import Echo, Operation, WordCount
from dualio.lab.bench.placement import Placement
from dualio.lab.bench.redis_scenario import RedisJob, RedisLab
from dualio.lab.bench.results import METRICS, Cell, check_server, fill, pool_model, summarise
from dualio.lab.bench.sampler import PeakSampler
from dualio.lab.bench.scenarios import (
    SCENARIOS,
    Job,
    Plan,
    blob,
    echo,
    fanout,
    native_model,
    overhead,
    server_floor,
    setup,
    thread_model,
    throughput,
    wordcount,
)
from dualio.lab.bench.server_process import RestartBudget, ServerProcess, ServerProcessError
from dualio.lab.bench.workloads import Workload
from dualio.lab.common import metadata
from dualio.lab.common.redis_server import unavailable
from dualio.server.fd_limit import raise_fd_limit
from dualio_sync import Client, ConnectError, DualioError, DualioTimeout
from dualio_transports.dualio_protocol.methods import ServerStats
from dualio_transports.wire.errors import causes

_BUILDERS: dict[str, Callable[[Plan, list[Mode], list[str]], Iterator[Job]]] = {
    "throughput": throughput,
    "overhead": overhead,
    "setup": setup,
    "fanout": fanout,
    "echo": echo,
    "wordcount": wordcount,
    "blob": blob,
    "server": server_floor,
}
BOTH_SERVER_MODELS = ("echo", "blob")
QUICK_REPEAT, FULL_REPEAT = 3, 5
LONG_REPEAT = 3  # rounds for a long cell, at most
LONG_CELL_S = 10.0  # a cell modelled to take this long, or whose first round did, is long
VERY_LONG_CELL_S = 60.0  # a cell whose first round took this long runs VERY_LONG_REPEAT rounds
VERY_LONG_REPEAT = 2
LONG_N = 10_000  # fan-out, echo and word-count cells of this many calls are long
WARMUP_CALLS = 200  # sequential echo calls per mode and server before round 1, not recorded
SLOWDOWN_VARIABLE = "DUALIO_LAB_SLOWDOWN_S"  # a test hook: seconds added to every SDK call


class BenchError(Exception):
    """A one-line reason the bench cannot run."""


class Terminated(BaseException):
    """SIGTERM: unwinds like Ctrl-C, so the servers are stopped and what finished is written."""


STATS_PATIENCE = 60.0
"""How long the lab keeps asking a server for its counters before it takes the server
for gone: a thread-per-connection server still winding down the previous cell's
10,000 connections on one core may take longer than one call's timeout to answer."""


def server_stats(client: StatsSource, each: float = 10.0, patience: float = STATS_PATIENCE) -> ServerStats:
    """The server's counters, asked again (``each`` seconds per try) while it is slow to
    answer or to take a connection, for ``patience`` seconds at most; the last error if it
    never does, and at once if nothing listens on its port any more (a refused connection)."""
    until = time.monotonic() + patience
    while True:
        try:
            return client.stats(timeout=each)
        except (DualioTimeout, ConnectError) as exc:
            if _refused(exc) or time.monotonic() + each > until:
                raise


def _refused(error: BaseException | None) -> bool:
    """Whether the last try behind ``error`` found nothing listening."""
    return any(isinstance(link, ConnectionRefusedError) for link in causes(error))


class ServerGone(Exception):
    """The server stopped answering the lab's own ``stats`` calls: no later cell can run.

    ``cells`` are the round's measurements so far, failed ones included."""

    def __init__(self, reason: str, cells: list[Cell]) -> None:
        super().__init__(reason)
        self.cells = cells


@dataclass(frozen=True)
class Rounds:
    """How many times each cell runs: ``repeat`` (K), and at most ``long`` for a long cell."""

    repeat: int
    long: int

    @classmethod
    def choose(cls, repeat: int | None, quick: bool) -> Rounds:
        k = repeat if repeat is not None else QUICK_REPEAT if quick else FULL_REPEAT
        if k < 1:
            raise BenchError(f"--repeat must be >= 1, not {k}")
        return cls(k, min(k, LONG_REPEAT))

    def for_cell(self, cell: Cell) -> int:
        return self.long if is_long(cell) else self.repeat


def is_long(cell: Cell) -> bool:
    """The biggest, slowest cells, which run at most ``Rounds.long`` rounds."""
    return (cell.scenario == "models"
            or (cell.scenario in ("fanout", "echo", "wordcount") and cell.total >= LONG_N)
            or (cell.scenario == "redis" and cell.case.startswith(redis_scenario.FANOUT)
                and cell.total >= LONG_N)
            or (cell.model_s or 0.0) >= LONG_CELL_S)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", default="all",
                        help=f"comma-separated: {', '.join(SCENARIOS)}, or all; or cluster "
                             "(a primary killed under load on a Redis Cluster and through Sentinel, "
                             "python -m dualio.lab.failover)")
    parser.add_argument("--modes", default="all", help="comma-separated mode names, or all")
    parser.add_argument("--quick", action="store_true", help="a run of a few minutes")
    parser.add_argument("--repeat", type=int, default=None,
                        help=f"rounds per cell (default {QUICK_REPEAT} with --quick, {FULL_REPEAT} "
                             f"without; the longest cells run at most {LONG_REPEAT})")
    parser.add_argument("--pool-workers", type=int, default=None, metavar="W",
                        help="also measure an emulated pool of W worker threads")
    parser.add_argument("--ns", default=None, help="fan-out sizes, e.g. 10,100,1000")
    parser.add_argument("--delay", type=float, default=None, help="fan-out server delay Y, s")
    parser.add_argument("--server-model", default=None,
                        help="server set-ups for the echo and blob scenarios (others use async), "
                             f"comma-separated: {', '.join(server_setups.SETUPS)}; both (async,threaded: "
                             "the --quick default) or all (the full run's default)")
    parser.add_argument("--host", default=None, help="use a running server instead of starting one")
    parser.add_argument("--port", type=int, default=7878)
    parser.add_argument("--out", default="results", help="folder for the results")
    parser.add_argument("--redis-server", metavar="PATH", default=None,
                        help="the redis-server the redis scenario starts (default: the first on the PATH)")
    parser.add_argument("--no-pin", action="store_true",
                        help="leave client and servers unpinned (default: servers on the first core, "
                             "the lab on the others; docs/lab.md)")


def _choose(args: argparse.Namespace) -> tuple[list[str], list[Mode], Plan, Rounds]:
    scenarios = list(SCENARIOS) if args.scenario == "all" else args.scenario.split(",")
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        raise BenchError(f"unknown scenario {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}")
    if args.pool_workers is not None and args.pool_workers < 1:
        raise BenchError("--pool-workers must be >= 1")
    rounds = Rounds.choose(args.repeat, args.quick)
    try:
        args.server_setups = server_setups.choose(args.server_model, args.quick)
    except ValueError as exc:
        raise BenchError(str(exc)) from None
    modes = all_modes(args.pool_workers)
    if args.modes != "all":
        names = args.modes.split(",")
        known = {m.name for m in modes} | {m.name for m in redis_clients.redis_modes()}
        bad = [n for n in names if n not in known]
        if bad:
            raise BenchError(f"unknown mode {', '.join(bad)}; choose from {', '.join(sorted(known))}")
        modes = [m for m in modes if m.name in names]
    plan = Plan.quick() if args.quick else Plan.full()
    if args.ns is not None:
        try:
            ns = tuple(int(n) for n in args.ns.split(","))
        except ValueError:
            raise BenchError(f"--ns must be comma-separated integers, not {args.ns!r}") from None
        if any(n <= 0 for n in ns):
            raise BenchError("every N in --ns must be > 0")
        plan = dataclasses.replace(plan, fanout_ns=ns)
    if args.delay is not None:
        if not 0 <= args.delay <= 60:
            raise BenchError("--delay must be in 0..60 seconds")
        plan = dataclasses.replace(plan, fanout_delay=args.delay)
    return scenarios, modes, plan, rounds


def slowdown_seconds() -> float:
    """``$DUALIO_LAB_SLOWDOWN_S``: a delay added to every SDK call (0 when unset)."""
    text = os.environ.get(SLOWDOWN_VARIABLE, "")
    if not text:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 10:
        raise BenchError(f"${SLOWDOWN_VARIABLE} must be seconds in 0..10, not {text!r}")
    return value


@dataclass
class SlowedOperation:
    """An operation that sleeps ``seconds`` before each call: the slowdown test hook."""

    inner: Operation
    seconds: float
    name: str = ""
    per_request_connection: bool = False

    def run_sync(self, client: Client, index: int) -> bool:
        time.sleep(self.seconds)
        return self.inner.run_sync(client, index)

    async def run_async(self, client: AsyncClient, index: int) -> bool:
        await anyio.sleep(self.seconds)
        return await self.inner.run_async(client, index)


def slowed(op: Operation, seconds: float) -> Operation:
    if seconds <= 0:
        return op
    return SlowedOperation(op, seconds, op.name, op.per_request_connection)


def _fresh(template: Cell) -> Cell:
    """A cell for one round: the template's description, nothing measured yet."""
    fresh = dataclasses.replace(template, samples={}, sampled={}, interval={})
    for metric in METRICS:
        if metric != "model_s":
            setattr(fresh, metric, None)
    return fresh


def _fresh_op(op: Operation) -> Operation:
    """The operation for one round: a word count starts each round with an empty table."""
    if isinstance(op, WordCount):
        return WordCount(op.count, op.wait, per_request_connection=op.per_request_connection)
    return op


class StatsSource(Protocol):
    """Where the lab reads a server's counters: a kept Client, or :class:`FreshStats`."""

    @property
    def closed(self) -> bool: ...

    def stats(self, *, timeout: float | None) -> ServerStats: ...


class FreshStats:
    """A server's counters over a connection of their own, closed at once: a one-at-a-time
    server serves nobody else while a connection stays open."""

    closed = False

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port

    def stats(self, *, timeout: float | None) -> ServerStats:
        with Client(self.host, self.port, timeout=timeout, connect_timeout=timeout) as client:
            return client.stats()


@dataclass
class CellRounds:
    """One cell of the tables and the rounds measured for it so far."""

    cell: Cell
    rounds: list[Cell] = field(default_factory=list)

    def result(self) -> Cell:
        return self.cell if self.cell.skipped else summarise(self.cell, self.rounds)


@dataclass
class Unit:
    """What one round runs once: a job (one cell) or a model (its two cells)."""

    label: str
    series: list[CellRounds]
    measure: Callable[[], list[Cell]]
    repeats: int


class Progress:
    """A transient bar on a terminal; otherwise one plain line per finished measurement."""

    def __init__(self, units: Sequence[Unit]) -> None:
        self.units = units
        self.done = 0
        self._bar: Any = None
        self._task: Any = None
        if sys.stdout.isatty() and sys.stderr.isatty():
            try:
                from rich.progress import Progress as RichProgress
            except ImportError:
                return
            self._bar = RichProgress(transient=True)
            self._bar.start()
            self._task = self._bar.add_task("lab", total=self.total)

    @property
    def total(self) -> int:
        return sum(unit.repeats for unit in self.units)

    def starting(self, label: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=label[:60], total=self.total)

    def finished(self, label: str, round_index: int, repeats: int, seconds: float) -> None:
        self.done += 1
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, total=self.total)
            return
        print(f"[{self.done}/{self.total}] {label}, round {round_index + 1}/{repeats}: {seconds:.2f} s",
              file=sys.stderr, flush=True)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


class Lab:
    """The servers of one run and the measurement of one round of a job or a model.

    ``restart(name)``, when given, stops the server the lab started under ``name`` by its
    PID and starts it again (its address and stats source change); the lab calls it, at
    most ``MAX_RESTARTS`` times a run, for a server found dead before a cell or that stops
    answering the lab's own stats call, and the cell says so."""

    def __init__(self, plan: Plan, servers: dict[str, ServerProcess | None],
                 addresses: dict[str, tuple[str, int]], stats: dict[str, StatsSource | None],
                 slowdown: float, restart: Callable[[str], None] | None = None,
                 budget: RestartBudget | None = None) -> None:
        self.plan = plan
        self.servers = servers
        self.addresses = addresses
        self.stats = stats
        self.slowdown = slowdown
        self.restart = restart
        self.budget = budget or RestartBudget()
        self.per_call: dict[str, float] = {}  # mode -> CPU cost per call, from concurrent throughput
        self.thread_floor: dict[int, float] = {}  # N -> the thread-floor row's wall, this round

    def warm_up(self, pairs: Sequence[tuple[Mode, str]]) -> None:
        """A short unrecorded run of each mode against each server it will meet: imports,
        first connections and caches are paid here, not by round 1's first cells."""
        for mode, server in pairs:
            try:
                mode.run(*self.addresses[server], Workload(WARMUP_CALLS, 1, 0.0), Echo(0.0))
            except Exception as exc:  # the cells will fail and say why
                print(f"warm-up: {mode.name} ({server}): {type(exc).__name__}: {exc}", file=sys.stderr)

    def _restarted(self, name: str, why: str) -> tuple[bool, str | None]:
        """Start the server ``name`` again if the lab may: whether it runs again, and what
        the cell says of it (None: the lab may not)."""
        if self.restart is None or self.servers.get(name) is None or not self.budget.take():
            return False, None
        try:
            self.restart(name)
        except Exception as exc:
            return False, f"the server {why}; starting it again failed: {type(exc).__name__}: {exc}"
        print(f"dualio bench: the {name} server {why}: started again ({self.budget})", file=sys.stderr)
        return True, f"the server {why}: started again"

    def job_round(self, job: Job) -> Cell:
        cell, mode = _fresh(job.cell), job.mode
        process = self.servers[job.server]
        restarted = None
        if process is not None and not process.alive:
            runs, restarted = self._restarted(job.server, "had died before this cell")
            if not runs:
                cell.errors, cell.note = job.work.total, restarted or "the server process died"
                return cell
            process = self.servers[job.server]
        if cell.scenario == "fanout" and mode.name in self.per_call and not job.cell.model_s:
            floor = self.thread_floor.get(cell.total) if mode.family == "threads" else None
            cell.model_s = (native_model(cell.total, cell.delay, self.per_call[mode.name]) if floor is None
                            else thread_model(cell.total, floor, self.per_call[mode.name]))
        op = _fresh_op(job.op)
        stats_client = self.stats[job.server]
        asking = True  # the lab's own stats call, not the measured calls, is under way
        try:
            before = None if stats_client is None else server_stats(stats_client)
            asking = False
            server_cpu = None if process is None else process.cpu_seconds()
            peak_reset = process is not None and process.reset_peak_rss()
            sampled = None if process is None or peak_reset else process.rss_bytes
            with PeakSampler(server_rss=sampled) as peak:
                baseline = peak.rss
                outcome = mode.run(*self.addresses[job.server], job.work, slowed(op, self.slowdown))
            fill(cell, outcome, peak.threads, peak.rss, baseline, job.payload_bytes, job.connections)
            if process is not None:
                self._server_use(cell, process, server_cpu, peak_reset, peak.server_rss,
                                 len(outcome.latencies))
            if stats_client is not None and before is not None:  # the floor server counts nothing
                asking = True
                after = server_stats(stats_client)
                asking = False
                if mode.family != THREAD_FLOOR.family:  # it calls no server
                    check_server(cell, before, after, job.work)
            if isinstance(op, WordCount):
                _check_words(cell, op)
        except Exception as exc:  # one failed cell must not lose the others
            cell.note = f"{type(exc).__name__}: {exc}"
            unanswered = stats_client is not None and (asking or stats_client.closed)  # the lab's own call
            if not (isinstance(exc, DualioError) and unanswered):
                cell.errors = max(cell.errors, 1)
            else:
                runs, again = self._restarted(job.server, "stopped answering the lab")
                if again is None or not runs:
                    cell.errors = max(cell.errors, 1)
                    raise ServerGone(again or str(exc), [cell]) from exc
                # The server's limit: it answered the lab no more, and runs again. The
                # measured calls that failed stay errors.
                cell.limited = max(cell.limited, 1)
                cell.note = f"{again} ({cell.note})"
                return cell
        if restarted is not None:
            cell.note = f"{restarted}; {cell.note}" if cell.note else restarted
        if cell.scenario == "throughput" and cell.case.startswith("concurrent") and cell.ops_per_s:
            self.per_call[mode.name] = 1 / cell.ops_per_s
        if mode.family == THREAD_FLOOR.family:
            if cell.wall_s and not cell.errors:
                self.thread_floor[cell.total] = cell.wall_s
            else:
                self.thread_floor.pop(cell.total, None)
        return cell

    @staticmethod
    def _server_use(cell: Cell, process: ServerProcess, cpu_before: float | None, peak_reset: bool,
                    sampled_rss: int, calls: int) -> None:
        """The server's CPU per call and resident-memory peak over the cell."""
        cpu_after = process.cpu_seconds()
        if cpu_before is not None and cpu_after is not None and calls:
            cell.server_cpu_us = (cpu_after - cpu_before) / calls * 1e6
        peak = process.peak_rss_bytes() if peak_reset else sampled_rss
        cell.server_rss_mb = peak / 2**20 if peak else None

    def model_round(self, model: str, templates: tuple[Cell, Cell], server: str) -> list[Cell]:
        cpu_cell, io_cell = (_fresh(t) for t in templates)
        host, port = self.addresses[server]
        result = concurrency_models.measure(model, host, port, self.plan.models_calls, self.plan.models_delay)
        if "error" in result:
            for cell in (cpu_cell, io_cell):
                cell.errors, cell.note = 1, str(result["error"])
            return [cpu_cell, io_cell]
        cpu_cell.wall_s = float(result["cpu_s"])  # type: ignore[arg-type]
        io_cell.wall_s = float(result["io_s"])  # type: ignore[arg-type]
        for cell in (cpu_cell, io_cell):
            cell.ops_per_s = cell.total / cell.wall_s if cell.wall_s else None
            if not result["ok"]:
                cell.wrong = 1
                cell.note = "a result did not check out"
        return [cpu_cell, io_cell]


def _stats_source(name: str, address: tuple[str, int], stack: ExitStack) -> StatsSource | None:
    """How the lab asks the server ``name`` for its counters."""
    setup = server_setups.SETUPS.get(name)
    if setup is not None and setup.model == "peer":
        return None  # the lab's minimal server has no stats method
    if setup is not None and setup.model == "sequential":
        return FreshStats(*address)  # a kept connection would be the only one served
    return stack.enter_context(Client(*address, timeout=10, connect_timeout=5))


def _check_words(cell: Cell, op: WordCount) -> None:
    expected = cell.total * op.count
    if not cell.errors and op.counted != expected:
        cell.errors += 1
        cell.note = f"counted {op.counted} words, expected {expected}"
    elif not cell.note:
        top = ", ".join(f"{word} {n}" for word, n in op.top[:3])
        cell.note = f"{op.counted} words; top: {top} …"


def _units(lab: Lab, scenarios: Sequence[str], modes: list[Mode], rounds: Rounds,
           server_models: list[str]) -> tuple[list[CellRounds], list[Unit], list[tuple[Mode, str]]]:
    """Every cell in table order, what each round runs, and the (mode, server) pairs to warm up."""
    plan = lab.plan
    jobs = [job for name in SCENARIOS if name in _BUILDERS and name in scenarios
            for job in _BUILDERS[name](plan, modes, server_models)]
    series: list[CellRounds] = []
    units: list[Unit] = []
    warm: dict[tuple[str, str], tuple[Mode, str]] = {}
    for job in jobs:
        mine = CellRounds(job.cell)
        series.append(mine)
        missing = job.mode.missing()
        if missing and not job.cell.skipped:
            job.cell.skipped, job.cell.note = True, f"skipped: {missing}"
        if job.cell.skipped:
            continue
        warm.setdefault((job.mode.name, job.server), (job.mode, job.server))
        units.append(_job_unit(lab, job, mine, rounds.for_cell(job.cell)))
    if "models" in scenarios:
        server = server_models[0]
        for model in concurrency_models.MODELS:
            templates = (Cell("models", "CPU-bound", model, server, plan.models_calls,
                              plan.models_calls, 0.0),
                         Cell("models", "I/O-bound", model, server, plan.models_calls,
                              plan.models_calls, plan.models_delay))
            if model == "sequential":
                templates[1].model_s = plan.models_calls * plan.models_delay
            elif model == concurrency_models.PROCESS_POOL:
                templates[1].model_s = pool_model(plan.models_calls, concurrency_models.POOL_WORKERS,
                                                  plan.models_delay)
            for t in templates:
                t.note = concurrency_models.NOTES.get(model, "")
            pair = [CellRounds(t) for t in templates]
            series += pair
            reason = concurrency_models.missing(model)
            if reason:
                for t in templates:
                    t.skipped, t.note = True, f"skipped: {reason}"
                continue
            units.append(_model_unit(lab, model, templates, server, pair, rounds.for_cell(templates[0])))
    return series, units, list(warm.values())


def _job_unit(lab: Lab, job: Job, mine: CellRounds, repeats: int) -> Unit:
    def measure() -> list[Cell]:
        return [lab.job_round(job)]

    label = f"{job.cell.scenario} {job.cell.case} {job.mode.name} ({job.server})"
    return Unit(label, [mine], measure, repeats)


def _model_unit(lab: Lab, model: str, templates: tuple[Cell, Cell], server: str, pair: list[CellRounds],
                repeats: int) -> Unit:
    def measure() -> list[Cell]:
        return lab.model_round(model, templates, server)

    return Unit(f"models {model} ({server})", pair, measure, repeats)


def _run_rounds(units: Sequence[Unit], rounds: Rounds, progress: Progress,
                placement: Placement) -> None:
    for round_index in range(max((u.repeats for u in units), default=0)):
        for unit in units:
            if round_index >= unit.repeats:
                continue
            placement.for_scenario(unit.series[0].cell.scenario)
            progress.starting(unit.label)
            started = time.perf_counter()
            try:
                measured = unit.measure()
            except ServerGone as gone:
                for mine, cell in zip(unit.series, gone.cells, strict=False):
                    mine.rounds.append(cell)
                raise
            for mine, cell in zip(unit.series, measured, strict=True):
                mine.rounds.append(cell)
            took = time.perf_counter() - started
            if round_index == 0 and took >= LONG_CELL_S:
                unit.repeats = min(unit.repeats, rounds.long)
            if round_index == 0 and took >= VERY_LONG_CELL_S:
                unit.repeats = min(unit.repeats, VERY_LONG_REPEAT)
            progress.finished(unit.label, round_index, unit.repeats, took)


class Interrupts:
    """Ctrl-C and SIGTERM: first they stop the measurements (KeyboardInterrupt, Terminated);
    once :meth:`defer` is called they only ask for patience while the results are written."""

    def __init__(self) -> None:
        self.deferred = 0
        self._previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def catch(self) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, self._terminate)

    @staticmethod
    def _terminate(signum: int, frame: FrameType | None) -> None:
        raise Terminated()

    def defer(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._later)

    def _later(self, signum: int, frame: FrameType | None) -> None:
        self.deferred += 1
        print("dualio bench: stopping the servers and writing what finished; one moment",
              file=sys.stderr, flush=True)

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def _measure(args: argparse.Namespace, scenarios: list[str], modes: list[Mode], plan: Plan,
             rounds: Rounds, slowdown: float, meta: dict[str, Any], interrupts: Interrupts,
             series: list[CellRounds]) -> None:
    """Start the servers, warm up, run the rounds; ``series`` fills as rounds finish."""
    wanted = set(args.server_setups)
    used: set[str] = set()
    if "echo" in scenarios:
        used.update(wanted & set(server_setups.ECHO_SETUPS))
    if "blob" in scenarios:
        used.update(wanted & set(server_setups.BLOB_SETUPS))
    if "server" in scenarios:
        used.update(server_setups.FLOOR_SETUPS)
    own_server = [s for s in scenarios if s != "redis"]  # the Redis scenario starts redis-server
    if any(s not in BOTH_SERVER_MODELS for s in own_server) or (own_server and not used):
        used.add("async")  # the other scenarios measure clients, against the async server
    models_wanted = [name for name in server_setups.SETUPS if name in used]  # async first
    placement = Placement(enabled=not args.no_pin and args.host is None)
    with ExitStack() as stack:
        try:
            servers: dict[str, ServerProcess | None] = {}
            addresses: dict[str, tuple[str, int]] = {}
            try:
                if args.host is None:
                    for model in models_wanted:
                        setup = server_setups.SETUPS[model]
                        process = stack.enter_context(
                            ServerProcess(setup.model, workers=setup.workers, options=setup.options))
                        if setup.workers == 1:  # a cluster gets every core, as it would in use
                            placement.pin_server(process.pid)
                        servers[model] = process
                        addresses[model] = (process.host, process.port)
                elif own_server:
                    models_wanted = ["external"]
                    servers["external"] = None
                    addresses["external"] = (args.host, args.port)
                stats: dict[str, StatsSource | None] = {
                    name: _stats_source(name, address, stack) for name, address in addresses.items()
                }
            except (ServerProcessError, DualioError) as exc:
                raise BenchError(f"cannot reach the server: {exc}") from exc

            def restart(name: str) -> None:
                old, source = servers[name], stats[name]
                if isinstance(source, Client):
                    source.close()
                if old is not None:
                    old.stop()
                setup = server_setups.SETUPS[name]
                process = stack.enter_context(
                    ServerProcess(setup.model, workers=setup.workers, options=setup.options))
                if setup.workers == 1:
                    placement.pin_server(process.pid)
                servers[name] = process
                addresses[name] = (process.host, process.port)
                stats[name] = _stats_source(name, addresses[name], stack)

            meta["servers"] = {name: f"{h}:{p}" for name, (h, p) in addresses.items()}
            meta["server_setups"] = {name: server_setups.SETUPS[name].about
                                     for name in addresses if name in server_setups.SETUPS}
            meta["placement"] = placement.describe()
            budget = RestartBudget()
            lab = Lab(plan, servers, addresses, stats, slowdown, restart if args.host is None else None,
                      budget)
            found, units, warm = _units(lab, scenarios, modes, rounds, models_wanted)
            series += found
            redis_lab = _redis_units(args, scenarios, plan, rounds, placement, budget, meta, stack, series,
                                     units)
            progress = Progress(units)
            try:
                progress.starting(f"warm-up: {len(warm)} modes")
                placement.for_scenario("warm-up")
                lab.warm_up(warm)
                if redis_lab is not None:
                    redis_lab.warm_up(WARMUP_CALLS)
                _run_rounds(units, rounds, progress, placement)
            except ServerGone as exc:
                print(f"dualio bench: the server stopped answering ({exc}); the remaining cells "
                      "were not measured", file=sys.stderr)
            finally:
                placement.release()
                progress.stop()
        except BaseException:
            interrupts.defer()  # the servers stop and the files are written whatever comes next
            raise


def _redis_units(args: argparse.Namespace, scenarios: list[str], plan: Plan, rounds: Rounds,
                 placement: Placement, budget: RestartBudget, meta: dict[str, Any], stack: ExitStack,
                 series: list[CellRounds], units: list[Unit]) -> RedisLab | None:
    """The Redis scenario's cells and units, against a redis-server started here (its
    cells skipped, with the reason, when it cannot be)."""
    if "redis" not in scenarios:
        return None
    names = None if args.modes == "all" else args.modes.split(",")
    modes = redis_scenario.modes_named(names)
    reason = ("the Redis scenario runs against a redis-server the lab starts itself, not with --host"
              if args.host is not None else unavailable(args.redis_server))
    redis_lab = RedisLab(functools.partial(redis_scenario.start, args.redis_server), placement.pin_server,
                         modes, budget)
    if not reason:
        stack.callback(redis_lab.stop)
        try:
            redis_lab.open()
        except Exception as exc:  # not started, or its keys not set: the other scenarios go on
            redis_lab.stop()
            reason = redis_scenario.start_failure(exc)
    meta["redis_server"] = redis_scenario.describe(redis_lab.server, reason, args.redis_server)
    if reason:
        print(f"dualio bench: the Redis cells are skipped: {reason}", file=sys.stderr)
    for job in redis_scenario.redis_jobs(plan, modes, reason):
        mine = CellRounds(job.cell)
        series.append(mine)
        if not job.cell.skipped:
            units.append(Unit(f"redis {job.cell.case} {job.cell.mode}", [mine],
                              functools.partial(_one, redis_lab.round, job), rounds.for_cell(job.cell)))
    return None if reason else redis_lab


def _one(measure: Callable[[RedisJob], Cell], job: RedisJob) -> list[Cell]:
    return [measure(job)]


def _draw_charts(folder: Path, cells: Sequence[Cell]) -> list[str]:
    """Every chart of the run into ``folder``; one note per chart not drawn."""
    _, notes = charts.write_all(folder, cells)
    return notes


def _header(rounds: Rounds, slowdown: float) -> None:
    if rounds.repeat > 1:
        fewer = f" ({rounds.long} for the longest)" if rounds.long < rounds.repeat else ""
        print(f"{rounds.repeat} rounds per cell{fewer}, interleaved: round r measures every cell "
              "before round r+1")
    if slowdown:
        print(f"${SLOWDOWN_VARIABLE}={slowdown:g}: every SDK call sleeps {slowdown:g} s first "
              "(a test hook; these are not real measurements)")


def run(args: argparse.Namespace) -> int:
    asked = args.scenario.split(",")
    if "cluster" in asked:  # failover on a Redis Cluster and through Sentinel: its own harness
        code = _failover(Path(args.out))
        rest = [s for s in asked if s != "cluster"]
        if not rest or code:
            return code
        args.scenario = ",".join(rest)
    try:
        scenarios, modes, plan, rounds = _choose(args)
        slowdown = slowdown_seconds()
    except BenchError as exc:
        print(f"dualio bench: {exc}", file=sys.stderr)
        return 2
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) / f"bench-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    argv = getattr(args, "argv", None) or ["bench", *sys.argv[2:]]
    meta = metadata.collect(argv, rounds.repeat, args.quick)
    meta.update({"long_repeat": rounds.long, "warmup_calls": WARMUP_CALLS, "slowdown_s": slowdown,
                 "scenarios": scenarios, "modes": [m.name for m in modes],
                 "plan": dataclasses.asdict(plan), "servers": {},
                 "spread": {"method": summary.method(rounds.repeat),
                            "bootstrap_min_rounds": summary.BOOTSTRAP_MIN_ROUNDS,
                            "confidence": summary.CONFIDENCE, "resamples": summary.RESAMPLES,
                            "seed": summary.SEED, "below_bootstrap": summary.method(1)}})
    raise_fd_limit()
    _header(rounds, slowdown)
    interrupts = Interrupts()
    interrupts.catch()
    series: list[CellRounds] = []
    started = time.perf_counter()
    stopped_by = 0
    try:
        try:
            _measure(args, scenarios, modes, plan, rounds, slowdown, meta, interrupts, series)
        except BenchError as exc:
            print(f"dualio bench: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            stopped_by = 130
        except Terminated:
            stopped_by = 143
        interrupts.defer()
        return _finish(out, series, scenarios, rounds, meta, started, stopped_by, interrupts)
    finally:
        interrupts.restore()


def _failover(folder: Path) -> int:
    """The cluster scenario: :mod:`dualio.lab.failover` for every client, its table and
    tallies written to ``folder/failover-STAMP/``."""
    from dualio.lab import failover

    out = folder / f"failover-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    code = failover.main(["--json", str(out / "failover.json"), "--markdown", str(out / "failover.md")])
    print(f"\nresults written to {out}/\n  failover.json, failover.md")
    return code


def _finish(out: Path, series: Sequence[CellRounds], scenarios: Sequence[str], rounds: Rounds,
            meta: dict[str, Any], started: float, stopped_by: int, interrupts: Interrupts) -> int:
    cells = [s.result() for s in series if s.cell.skipped or s.rounds]
    goals = evaluate(cells)
    ordered = [s for s in SCENARIOS if s in scenarios]
    meta.update({"partial": bool(stopped_by), "finished": metadata.now(),
                 "duration_s": round(time.perf_counter() - started, 3)})
    notes: list[str] = []
    report.write_json(out / "results.json",  # first: nothing after it can lose the numbers
                      report.results_document(cells, meta, goals, metadata.SCHEMA_VERSION))
    if not stopped_by:
        report.print_tables(cells, ordered, rounds.repeat, colour=sys.stdout.isatty())
        print_goals(goals, rounds.repeat)
        notes = _draw_charts(out, cells)
    charts = sorted(p.name for p in out.glob("*.png"))
    report.write_atomic(out / "results.md", report.markdown(cells, ordered, meta, goals, charts))
    for note in notes:
        print(note)
    for cell in (c for c in cells if c.limited):
        print(f"limit: {cell.scenario} {cell.case} {cell.mode} ({cell.server}): {cell.limited} of "
              f"{cell.total * cell.rounds} calls stopped: {cell.note}")
    print(f"\nresults written to {out}/\n  {', '.join(['results.json', 'results.md', *charts])}")
    if stopped_by or interrupts.deferred:
        finished = sum(1 for c in cells if not c.skipped)
        print(f"dualio bench: interrupted; {finished} cells with at least one round are in the "
              "partial results", file=sys.stderr)
        return stopped_by or 130
    lost = [c for c in cells if c.lost and not redis_scenario.is_peer(c)]
    for cell in (c for c in cells if c.lost and redis_scenario.is_peer(c)):
        print(f"peer: {cell.case} {cell.mode}: errors={cell.errors} wrong={cell.wrong} {cell.note}")
    if lost:
        print(f"\n!!! {len(lost)} measurements LOST OR MISROUTED CALLS — see the red rows:",
              file=sys.stderr)
        for cell in lost:
            print(f"!!!   {cell.scenario} {cell.case} {cell.mode}: errors={cell.errors} "
                  f"wrong={cell.wrong} {cell.note}", file=sys.stderr)
        return 1
    return 0
