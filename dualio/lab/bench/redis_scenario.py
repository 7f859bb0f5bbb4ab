"""The Redis scenario: dualio's Redis faces beside redis-py, valkey-glide and coredis,
against a redis-server the lab starts itself (on 127.0.0.1, a free port, saving
nothing, pinned like the lab's other servers).

Its cases: sequential GET; 100 GETs in flight (each client's own way: threads or tasks
sharing one client, which pipelines on one connection for dualio and glide and takes
connections from its pool for redis-py and coredis); connect + GET + close; the fan-out,
N BLPOPs on empty lists that the server holds Y seconds each, against each mode's model;
and the cancel storm, GETs given up at random moments through the fault proxy's
latency, counting wrong answers and the connections each client opened again.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dualio.lab.bench.modes import THREAD_FLOOR
from dualio.lab.bench.redis_clients import (
    KEYS,
    Opening,
    RedisMode,
    key,
    redis_modes,
    run,
    storm,
    value,
)
from dualio.lab.bench.results import Cell, fill, pool_model
from dualio.lab.bench.sampler import PeakSampler
from dualio.lab.bench.scenarios import Plan, native_model, thread_model
from dualio.lab.bench.server_process import MAX_RESTARTS, cpu_seconds
from dualio.lab.bench.workloads import Outcome, Workload, drive_threads
from dualio.lab.common.redis_server import NOT_INSTALLED, RedisServer, RedisServerError, start_redis

SERVER = "redis"
"""The ``server`` column of every Redis cell."""

OLDEST = (6, 0)
"""The oldest redis-server the scenario measures: HELLO 3 (RESP3) came with 6.0."""

SERVER_OPTIONS = ("--hz", "500", "--maxclients", "12000")
"""``--hz 500`` (Redis's most): a blocked command's timeout is checked 500 times a
second (the default 10 rounds BLPOP's Y up to the next 100 ms; 2 ms here).
``--maxclients``: the full run's 10,000 BLPOPs at once, and the clients beside them."""

SEQUENTIAL, CONCURRENT, CONNECT = "sequential GET", "concurrent GET c=", "connect+GET+close"
STORM = "cancel storm"
FANOUT = "BLPOP N="
STORM_INFLIGHT = 10
STORM_LATENCY = 0.02


def modes_named(names: Sequence[str] | None) -> list[RedisMode]:
    """The scenario's modes, or those of them named (``--modes``)."""
    return [m for m in redis_modes() if names is None or m.name in names]


def server_version(executable: str | None = None) -> tuple[int, ...] | None:
    """redis-server's version from ``redis-server --version``; None when it says none."""
    import shutil

    path = executable or shutil.which("redis-server")
    if path is None:
        return None
    try:
        text = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"v=(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(part) for part in found.groups()) if found else None


def unavailable(executable: str | None = None) -> str:
    """Why the scenario cannot run on this machine, or ""."""
    version = server_version(executable)
    if version is None:
        import shutil

        return NOT_INSTALLED if shutil.which(executable or "redis-server") is None else (
            "redis-server --version printed no version")
    if version[:2] < OLDEST:
        return (f"redis-server {'.'.join(map(str, version))} is older than "
                f"{'.'.join(map(str, OLDEST))}: no RESP3 (HELLO 3)")
    return ""


@dataclass
class RedisJob:
    """One Redis cell: what runs in each round."""

    cell: Cell
    mode: RedisMode | None  # None: the thread floor
    case: str  # get, connect, blpop, storm, floor
    work: Workload
    connections: int = 1


def _least_time(mode: RedisMode, n: int, delay: float) -> float:
    """The least a fan-out cell can take by its model (CPU cost aside)."""
    if mode.model == "pool" and mode.workers:
        return pool_model(n, mode.workers, delay)
    if mode.model == "one-connection":
        return n * delay
    return delay


def redis_jobs(plan: Plan, modes: Sequence[RedisMode], reason: str = "") -> list[RedisJob]:
    """Every Redis cell in table order; ``reason``: why none can run (all skipped)."""
    made: list[RedisJob] = []

    def add(case: str, mode: RedisMode | None, kind: str, work: Workload, name: str = "",
            connections: int = 1) -> RedisJob:
        cell = Cell(SERVER, case, name or (mode.name if mode else THREAD_FLOOR.name), SERVER, work.total,
                    work.inflight, work.delay)
        job = RedisJob(cell, mode, kind, work, connections)
        missing = reason or (mode.missing() if mode else "")
        if missing:
            cell.skipped, cell.note = True, f"skipped: {missing}"
        made.append(job)
        return job

    for mode in modes:
        add(SEQUENTIAL, mode, "get", Workload(plan.sequential_calls, 1, 0.0, 60.0))
    for mode in modes:
        if mode.face == "raw":
            continue
        c = plan.concurrency
        calls = plan.concurrent_calls // (5 if mode.face == "sync" else 1)  # threads: fewer calls
        add(f"{CONCURRENT}{c}", mode, "get", Workload(calls, c, 0.0, 60.0))
    for mode in modes:
        add(CONNECT, mode, "connect", Workload(plan.setup_calls // 2, 1, 0.0, 60.0))
    fanned = [m for m in modes if m.model]
    y = plan.fanout_delay
    for n in plan.fanout_ns:
        timeout = max(60.0, 5 * y)
        if any(m.model == "threads" for m in fanned) and n <= plan.thread_connect_cap:
            add(f"{FANOUT}{n}", None, "floor", Workload(n, n, y, timeout))
        for mode in fanned:
            predicted = _least_time(mode, n, y)
            job = add(f"{FANOUT}{n}", mode, "blpop",
                      Workload(n, n, y, max(timeout, 3 * predicted)), connections=n)
            cell = job.cell
            if mode.model == "pool" and mode.workers:
                cell.model_s = pool_model(n, mode.workers, y)
            elif mode.model == "one-connection":
                cell.model_s = n * y
            if cell.skipped:
                continue
            if predicted > plan.budget_s:
                cell.skipped = True
                cell.note = f"skipped: predicted {predicted:.0f} s > budget {plan.budget_s:.0f} s"
            elif mode.model == "threads" and n > plan.thread_connect_cap:
                cell.skipped = True
                cell.note = (f"skipped: {n:,} threads at once; above {plan.thread_connect_cap:,} "
                             "CPython threads convoy on the GIL")
    for mode in modes:
        job = add(f"{STORM} K={plan.storm_calls}", mode, "storm",
                  Workload(plan.storm_calls, STORM_INFLIGHT, 0.0, 60.0))
        if mode.storm and not job.cell.skipped:
            job.cell.skipped, job.cell.note = True, f"skipped: {mode.storm}"
    return made


@dataclass
class RedisLab:
    """The redis-server of one run, and the measurement of one round of a Redis cell.

    Before each cell the server must be alive; one found dead is started again (at most
    ``MAX_RESTARTS`` times a run), its keys set again, and the cell says so."""

    start: Callable[[], RedisServer]
    pin: Callable[[int], None]
    modes: Sequence[RedisMode] = ()
    server: RedisServer | None = None
    restarts: int = 0
    connect_cost: dict[str, float] = field(default_factory=dict)  # mode -> s per connect+GET+close
    thread_floor: dict[int, float] = field(default_factory=dict)  # N -> the floor row's wall
    seed: int = 0

    def open(self) -> RedisServer:
        server = self.start()
        self.server = server
        self.pin(server.pid)
        fill_keys(server.address)
        return server

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def _ready(self) -> tuple[RedisServer | None, str]:
        """The server for the next cell, and what the cell says of a restart."""
        server = self.server
        if server is not None and server.alive:
            return server, ""
        if self.restarts >= MAX_RESTARTS:
            return None, "redis-server died, and the lab may start it no more times"
        self.restarts += 1
        if server is not None:
            server.stop()
        try:
            fresh = self.open()
        except Exception as exc:  # the cell fails and says why; the run goes on
            self.stop()
            return None, f"redis-server died; starting it again failed: {start_failure(exc)}"
        print(f"dualio bench: redis-server had died: started again ({self.restarts} of {MAX_RESTARTS})",
              file=sys.stderr)
        return fresh, "redis-server had died before this cell: started again"

    def warm_up(self, modes: Sequence[RedisMode], calls: int) -> None:
        server, _ = self._ready()
        if server is None:
            return
        for mode in modes:
            if mode.missing():
                continue
            try:
                run(mode, Opening(*server.address, timeout=30.0), "get", Workload(calls, 1, 0.0, 60.0))
            except Exception as exc:  # the cells will fail and say why
                print(f"warm-up: {mode.name} (redis): {type(exc).__name__}: {exc}", file=sys.stderr)

    def round(self, job: RedisJob) -> Cell:
        cell = dataclasses.replace(job.cell, samples={}, sampled={}, interval={})
        server, restarted = self._ready()
        if server is None:
            cell.errors, cell.note = job.work.total, restarted
            return cell
        self._model(job, cell)
        cpu = cpu_seconds(server.pid)
        try:
            with PeakSampler() as peak:
                baseline = peak.rss
                outcome, extra = self._run(job, server)
            fill(cell, outcome, peak.threads, peak.rss, baseline, 0,
                 job.connections if job.case == "blpop" else 0)
            after = cpu_seconds(server.pid)
            if cpu is not None and after is not None and outcome.latencies:
                cell.server_cpu_us = (after - cpu) / len(outcome.latencies) * 1e6
            if job.case == "storm":
                cell.new_connections = extra["new_connections"]
                given_up = f"{extra['given_up']:.0f} of {job.work.total} given up"
                cell.note = f"{given_up}; {cell.note}" if cell.note else given_up
        except Exception as exc:  # one failed cell must not lose the others
            cell.errors = max(cell.errors, 1)
            cell.note = f"{type(exc).__name__}: {exc}"
        if restarted:
            cell.note = f"{restarted}; {cell.note}" if cell.note else restarted
        self._learn(job, cell)
        return cell

    def _run(self, job: RedisJob, server: RedisServer) -> tuple[Outcome, dict[str, float]]:
        if job.case == "floor":
            return _thread_floor(job.work), {}
        assert job.mode is not None
        if job.case == "storm":
            self.seed += 1
            stormed = storm(job.mode, server.address, job.work, STORM_LATENCY, self.seed)
            return stormed.outcome, {"new_connections": float(stormed.new_connections),
                                     "given_up": float(stormed.given_up)}
        opening = Opening(*server.address, timeout=job.work.timeout, connections=job.connections)
        return run(job.mode, opening, job.case, job.work), {}  # type: ignore[arg-type]

    def _model(self, job: RedisJob, cell: Cell) -> None:
        """A fan-out cell's model from this round's connect cells and thread floor."""
        mode = job.mode
        if job.case != "blpop" or mode is None or mode.model not in ("coroutines", "threads"):
            return
        cost = self.connect_cost.get(mode.cost_from)
        if cost is None:
            return
        if mode.model == "coroutines":
            cell.model_s = native_model(cell.total, cell.delay, cost)
        elif (floor := self.thread_floor.get(cell.total)) is not None:
            cell.model_s = thread_model(cell.total, floor, cost)

    def _learn(self, job: RedisJob, cell: Cell) -> None:
        ok = bool(cell.wall_s) and not cell.errors
        if job.case == "connect" and job.mode is not None:
            if ok and cell.wall_s:
                self.connect_cost[job.mode.name] = cell.wall_s / cell.total
            else:
                self.connect_cost.pop(job.mode.name, None)
        if job.case == "floor":
            if ok and cell.wall_s:
                self.thread_floor[cell.total] = cell.wall_s
            else:
                self.thread_floor.pop(cell.total, None)


def _thread_floor(work: Workload) -> Outcome:
    import time

    def sleep(index: int) -> bool:
        time.sleep(work.delay)
        return True

    return drive_threads(lambda: (sleep, lambda: None), work)


def fill_keys(address: tuple[str, int]) -> None:
    """Set the keys the GET cases read."""
    from dualio_sync.redis import Redis

    with Redis(*address, timeout=30) as client:
        client.pipeline(*(("SET", key(i), value(i)) for i in range(KEYS)))


def describe(server: RedisServer | None, skipped: str = "", executable: str | None = None) -> dict[str, Any]:
    """What results.json records of the server."""
    version = server_version(executable)
    return {"version": None if version is None else ".".join(map(str, version)),
            "address": None if server is None else f"{server.host}:{server.port}",
            "options": list(SERVER_OPTIONS), "skipped": skipped}


PEER_MODES = frozenset(m.name for m in redis_modes() if m.peer)


def is_peer(cell: Cell) -> bool:
    """A Redis cell of a client that is not dualio's: what goes wrong there is a finding
    about that client, reported, not a failure of the run."""
    return cell.scenario == SERVER and cell.mode in PEER_MODES


def start_failure(exc: BaseException) -> str:
    """One line on why redis-server could not be started (or its keys set): the error's
    first line, and the last line of the server's log when the error carries one."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    if isinstance(exc, RedisServerError):
        return lines[0] if len(lines) == 1 else f"{lines[0]} {lines[-1]}"
    return f"redis-server did not start: {type(exc).__name__}: {lines[0]}"


def start(executable: str | None = None) -> RedisServer:
    return start_redis(executable, options=SERVER_OPTIONS)
