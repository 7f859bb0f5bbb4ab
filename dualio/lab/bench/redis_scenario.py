"""The Redis scenario: dualio's Redis faces beside redis-py, valkey-glide and coredis,
against a redis-server the lab starts itself (on 127.0.0.1, a free port, saving
nothing, pinned like the lab's other servers).

Its cases: sequential GET; 100 GETs in flight (each client its own way: threads or
tasks sharing one client, which pipelines on one connection for dualio and glide, and
takes pooled connections for redis-py and coredis); connect + GET + close; the
fan-out, N BLPOPs on empty lists that the server holds Y seconds each, against each
mode's model; and the cancel storm (:mod:`dualio.lab.bench.redis_storm`).
"""

from __future__ import annotations

import dataclasses
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from dualio.lab.bench.modes import THREAD_FLOOR
from dualio.lab.bench.redis_clients import (
    GLIDE_BLOCKING_GRACE,
    KEYS,
    Opening,
    RedisMode,
    key_of,
    redis_modes,
    resp_command,
    run,
    value_of,
)
from dualio.lab.bench.redis_storm import storm
from dualio.lab.bench.results import Cell, fill, pool_model
from dualio.lab.bench.sampler import PeakSampler
from dualio.lab.bench.scenarios import Plan, native_model, thread_model
from dualio.lab.bench.server_process import RestartBudget, cpu_seconds
from dualio.lab.bench.workloads import Outcome, Workload
from dualio.lab.common.redis_server import RedisServer, RedisServerError, server_version, start_redis
from dualio_sync.redis import Redis as BlockingRedis

SCENARIO = "redis"
SERVER = "redis"
"""The ``server`` column of every Redis cell."""

SERVER_OPTIONS = ("--maxclients", "12000")
"""The full run's 10,000 BLPOPs at once, and the clients beside them."""
HOLDING_HZ = 500
"""redis-server's ``hz`` for the BLPOP cells, its most: a blocked command's timeout is
checked ``hz`` times a second, so at the default 10 a BLPOP's Y rounds up to the next
100 ms. The other cells run at the default, so its busier timer is not counted in their
server CPU per call."""
DEFAULT_HZ = 10
CHECK_TIMEOUT = 5.0
"""How long the lab waits for the server's answer to its own PING before a cell."""

SEQUENTIAL, CONCURRENT, CONNECT = "sequential GET", "concurrent GET c=", "connect+GET+close"
FANOUT, STORM = "BLPOP N=", "cancel storm K="
STORM_INFLIGHT = 10

Kind = Literal["get", "connect", "blpop", "storm", "floor"]


def modes_named(names: Sequence[str] | None) -> list[RedisMode]:
    """The scenario's modes, or those of them named (``--modes``)."""
    return [m for m in redis_modes() if names is None or m.name in names]


@dataclass
class RedisJob:
    """One Redis cell: what runs in each round."""

    cell: Cell
    mode: RedisMode | None  # None: the thread floor
    kind: Kind
    work: Workload


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

    def add(case: str, mode: RedisMode | None, kind: Kind, work: Workload) -> RedisJob:
        cell = Cell(SCENARIO, case, mode.name if mode else THREAD_FLOOR.name, SERVER, work.total,
                    work.inflight, work.delay)
        job = RedisJob(cell, mode, kind, work)
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
        calls = plan.concurrent_calls // (5 if mode.face == "sync" else 1)  # threads: fewer calls
        add(f"{CONCURRENT}{plan.concurrency}", mode, "get", Workload(calls, plan.concurrency, 0.0, 60.0))
    for mode in modes:
        add(CONNECT, mode, "connect", Workload(plan.setup_calls // 2, 1, 0.0, 60.0))
    fanned = [m for m in modes if m.model]
    y = plan.fanout_delay
    for n in plan.fanout_ns:
        if any(m.model == "threads" for m in fanned) and n <= plan.thread_connect_cap:
            add(f"{FANOUT}{n}", None, "floor", Workload(n, n, y, 60.0))
        for mode in fanned:
            least = _least_time(mode, n, y)
            cell = add(f"{FANOUT}{n}", mode, "blpop", Workload(n, n, y, max(60.0, 3 * least))).cell
            if mode.model in ("pool", "one-connection"):
                cell.model_s = least
            if cell.skipped:
                continue
            if least > plan.budget_s:
                cell.skipped = True
                cell.note = f"skipped: predicted {least:.0f} s > budget {plan.budget_s:.0f} s"
            elif mode.name.startswith("glide") and least > y + GLIDE_BLOCKING_GRACE:
                cell.skipped = True
                cell.note = (f"skipped: glide's one connection answers the BLPOPs one after another "
                             f"({least:.1f} s for the last) and gives each {y + GLIDE_BLOCKING_GRACE:.1f} s "
                             "(its timeout + 0.5 s), whatever request_timeout says")
            elif mode.model == "threads" and n > plan.thread_connect_cap:
                cell.skipped = True
                cell.note = (f"skipped: {n:,} threads at once; above {plan.thread_connect_cap:,} "
                             "CPython threads convoy on the GIL")
    for mode in modes:
        cell = add(f"{STORM}{plan.storm_calls}", mode, "storm",
                   Workload(plan.storm_calls, STORM_INFLIGHT, 0.0, 60.0)).cell
        if mode.storm_skip and not cell.skipped:
            cell.skipped, cell.note = True, f"skipped: {mode.storm_skip}"
    return made


def _ask(server: RedisServer, *command: str) -> bytes:
    """One command on a connection of its own, and the first line of its reply."""
    with socket.create_connection(server.address, timeout=CHECK_TIMEOUT) as sock:
        sock.sendall(resp_command(*command))
        reply = b""
        while not reply.endswith(b"\r\n"):
            more = sock.recv(4096)
            if not more:
                break
            reply += more
        return reply


def _answers(server: RedisServer) -> bool:
    try:
        return _ask(server, "PING") == b"+PONG\r\n"
    except OSError:
        return False


@dataclass
class RedisLab:
    """The redis-server of one run, and the measurement of one round of a Redis cell.

    Before each cell the server must be alive and answer a PING within
    ``CHECK_TIMEOUT``; one that does not is stopped by its PID and started again (while
    the run's restart budget lasts), its keys set again, and the cell says so."""

    start: Callable[[], RedisServer]
    pin: Callable[[int], None]
    modes: Sequence[RedisMode] = ()
    budget: RestartBudget = field(default_factory=RestartBudget)
    server: RedisServer | None = None
    hz: int = DEFAULT_HZ
    connect_cost: dict[str, float] = field(default_factory=dict)  # mode -> client CPU s per connect
    thread_floor: dict[int, float] = field(default_factory=dict)  # N -> the floor row's wall
    runs: dict[int, int] = field(default_factory=dict)  # id(job) -> rounds run: the storm's seed

    def open(self) -> RedisServer:
        server = self.start()
        self.server, self.hz = server, DEFAULT_HZ
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
        if server is not None and server.alive and _answers(server):
            return server, ""
        why = "had died" if server is None or not server.alive else (
            f"answered no PING in {CHECK_TIMEOUT:g} s")
        if not self.budget.take():
            return None, f"redis-server {why}, and the run may start no more servers again"
        self.stop()
        try:
            fresh = self.open()
        except Exception as exc:  # the cell fails and says why; the run goes on
            self.stop()
            return None, f"redis-server {why}; starting it again failed: {start_failure(exc)}"
        print(f"dualio bench: redis-server {why}: started again ({self.budget})", file=sys.stderr)
        return fresh, f"redis-server {why} before this cell: started again"

    def _set_hz(self, server: RedisServer, hz: int) -> None:
        if hz != self.hz:
            if _ask(server, "CONFIG", "SET", "hz", str(hz)) != b"+OK\r\n":
                raise RuntimeError(f"redis-server refused CONFIG SET hz {hz}")
            self.hz = hz

    def warm_up(self, calls: int) -> None:
        server, _ = self._ready()
        if server is None:
            return
        for mode in self.modes:
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
        try:
            self._set_hz(server, HOLDING_HZ if job.kind == "blpop" else DEFAULT_HZ)
            cpu = cpu_seconds(server.pid)
            with PeakSampler() as peak:
                baseline = peak.rss
                outcome, new_connections, given_up = self._run(job, server)
            holding = job.mode is not None and job.kind == "blpop" and job.mode.model in (
                "coroutines", "threads")  # a connection per call: memory per connection
            fill(cell, outcome, peak.threads, peak.rss, baseline, 0, job.work.total if holding else 0)
            after = cpu_seconds(server.pid)
            if job.kind != "floor" and cpu is not None and after is not None and outcome.latencies:
                cell.server_cpu_us = (after - cpu) / len(outcome.latencies) * 1e6
            if job.kind == "storm":
                cell.client_cpu_us = None  # the proxy's threads run in the lab's process too
                cell.new_connections = float(new_connections)
                counted = f"{given_up} of {job.work.total} given up"
                cell.note = f"{counted}; {cell.note}" if cell.note else counted
        except Exception as exc:  # one failed cell must not lose the others
            cell.errors = max(cell.errors, 1)
            cell.note = f"{type(exc).__name__}: {exc}"
        if restarted:
            cell.note = f"{restarted}; {cell.note}" if cell.note else restarted
        self._learn(job, cell)
        return cell

    def _run(self, job: RedisJob, server: RedisServer) -> tuple[Outcome, int, int]:
        """The round's outcome, and for the storm its new connections and calls given up."""
        if job.kind == "floor":
            return THREAD_FLOOR.run("", 0, job.work), 0, 0
        assert job.mode is not None
        if job.kind == "storm":
            seed = self.runs[id(job)] = self.runs.get(id(job), 0) + 1  # every mode of a round alike
            stormed = storm(job.mode, server.address, job.work, seed)
            return stormed.outcome, stormed.new_connections, stormed.given_up
        opening = Opening(*server.address, timeout=job.work.timeout,
                          connections=job.work.total if job.kind == "blpop" else 1)
        return run(job.mode, opening, job.kind, job.work), 0, 0

    def _model(self, job: RedisJob, cell: Cell) -> None:
        """A fan-out cell's model from this round's connect cell and thread floor."""
        mode = job.mode
        if job.kind != "blpop" or mode is None or mode.model not in ("coroutines", "threads"):
            return
        cost = self.connect_cost.get(mode.name)
        if cost is None:
            return
        if mode.model == "coroutines":
            cell.model_s = native_model(cell.total, cell.delay, cost)
        elif (floor := self.thread_floor.get(cell.total)) is not None:
            cell.model_s = thread_model(cell.total, floor, cost)

    def _learn(self, job: RedisJob, cell: Cell) -> None:
        ok = not cell.errors and not cell.wrong
        if job.kind == "connect" and job.mode is not None:
            if ok and cell.client_cpu_us:
                self.connect_cost[job.mode.name] = cell.client_cpu_us / 1e6
            else:
                self.connect_cost.pop(job.mode.name, None)
        if job.kind == "floor":
            if ok and cell.wall_s:
                self.thread_floor[cell.total] = cell.wall_s
            else:
                self.thread_floor.pop(cell.total, None)


def fill_keys(address: tuple[str, int]) -> None:
    """Set the keys the GET cases read."""
    with BlockingRedis(*address, timeout=30) as client:
        client.pipeline(*(("SET", key_of(i), value_of(i)) for i in range(KEYS)))


def describe(server: RedisServer | None, skipped: str = "", executable: str | None = None) -> dict[str, Any]:
    """What results.json records of the server."""
    version = server_version(executable)
    return {"version": None if version is None else ".".join(map(str, version)),
            "address": None if server is None else f"{server.host}:{server.port}",
            "options": list(SERVER_OPTIONS), "hz": {"BLPOP": HOLDING_HZ, "other": DEFAULT_HZ},
            "skipped": skipped}


PEER_MODES = frozenset(m.name for m in redis_modes() if m.peer)


def is_peer(cell: Cell | dict[str, Any]) -> bool:
    """A Redis cell of a client that is not dualio's (a Cell, or one read from
    results.json): what goes wrong there is a finding about that client, reported, not
    a failure of the run."""
    if isinstance(cell, dict):
        return cell["scenario"] == SCENARIO and cell["mode"] in PEER_MODES
    return cell.scenario == SCENARIO and cell.mode in PEER_MODES


def start_failure(exc: BaseException) -> str:
    """One line on why redis-server could not be started (or its keys set): the error's
    first line, and the last line of the server's log when the error carries one."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    if isinstance(exc, RedisServerError):
        return lines[0] if len(lines) == 1 else f"{lines[0]} {lines[-1]}"
    return f"redis-server did not start: {type(exc).__name__}: {lines[0]}"


def start(executable: str | None = None) -> RedisServer:
    return start_redis(executable, options=SERVER_OPTIONS)
