"""The rows of the lab: which workloads each mode is measured on."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dualio.lab.bench.modes import THREAD_FLOOR, Mode, all_modes
from dualio.lab.bench.operations import Blob, Echo, Operation, SetUp, Upper, WordCount
from dualio.lab.bench.results import Cell, pool_model
from dualio.lab.bench.server_setups import BLOB_SETUPS, ECHO_SETUPS, FLOOR_SETUPS, SETUPS
from dualio.lab.bench.workloads import Workload

PORTAL_FDS = 1
"""Open files of one portal client: its socket (the loop thread, its selector and wake-up
pipe are the process's one)."""


def open_files_limit() -> int:
    try:
        import resource
    except ImportError:  # no such limit to check here
        return 1 << 30
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


SCENARIOS = ("throughput", "overhead", "setup", "server", "fanout", "echo", "wordcount", "blob", "models",
             "redis")
MIB = 1 << 20


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
    echo_ns: tuple[int, ...]
    wordcount_ns: tuple[int, ...]
    words: int
    word_wait: float
    blob_requests: int
    blob_inflight: int
    models_calls: int
    models_delay: float
    thread_connect_cap: int  # threads that all connect at once: beyond this, GIL convoys
    setup_calls: int  # connections made one after another in the set-up scenario
    sequential_budget_s: float = 2.0  # fan-out of one call at a time: N·Y is exact, a second shows it
    echo_budget_s: float = 10.0  # echo's pool-bound cells: the fan-out scenario shows the pool's model
    storm_calls: int = 500  # GETs of the Redis cancel storm, each given up at a random moment

    @classmethod
    def quick(cls) -> Plan:
        return cls((10, 100, 1000), 0.05, 6.0, 1000, 5000, 100, 3000,
                   (100, 1000), (100, 1000), 10, 0.01, 40, 20, 20, 0.1, 1000, 300)

    @classmethod
    def full(cls) -> Plan:
        return cls((10, 100, 1000, 10_000), 0.1, 22.0, 5000, 20_000, 100, 5000,
                   (1000, 10_000), (10, 100, 1000, 10_000), 20, 0.05, 100, 50, 40, 0.25, 2000, 2000,
                   storm_calls=1000)


@dataclass(frozen=True)
class Job:
    cell: Cell
    mode: Mode
    work: Workload
    op: Operation
    server: str = "async"
    connections: int = 0  # for memory per connection
    payload_bytes: int = 0  # for MB/s


def _predicted(mode: Mode, work: Workload) -> float:
    if mode.family in ("sync", "raw-socket"):
        return work.total * work.delay
    if mode.workers:
        return pool_model(work.total, mode.workers, work.delay)
    return work.delay


def _budgeted(job: Job, budget_s: float) -> Job:
    predicted = _predicted(job.mode, job.work)
    if predicted > budget_s:
        job.cell.skipped = True
        job.cell.note = f"skipped: predicted {predicted:.0f} s > budget {budget_s:.0f} s"
    return job


ANCHOR_THREADS_MAX_N = 1000
"""The anchors' thread modes (anyio's BlockingPortal, synchronicity) fan out to this N at
most: the portal's goal is judged at 1,000, and at 10,000 each takes a minute a round."""


def fanout(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    y = plan.fanout_delay
    threaded = [THREAD_FLOOR] if any(mode.family == "threads" for mode in modes) else []
    for n in plan.fanout_ns:
        for mode in threaded + modes:
            if mode.family in ("raw-socket", "shared"):
                continue
            work = Workload(n, n, y, timeout=max(120.0, 3 * _predicted(mode, Workload(n, n, y))))
            cell = Cell("fanout", f"N={n}", mode.name, servers[0], n, n, y)
            if mode.name == "portal-threads" and n * PORTAL_FDS > open_files_limit():
                cell.skipped = True
                cell.note = (f"skipped: {n:,} portal clients hold about {n * PORTAL_FDS:,} files "
                             "(a socket each), over the open-files limit")
            if mode.through and mode.family == "threads" and n > ANCHOR_THREADS_MAX_N:
                cell.skipped = True
                cell.note = (f"skipped: a peer's thread mode above N = {ANCHOR_THREADS_MAX_N:,}, "
                             "where the portal's goal is judged")
            if mode.workers:
                cell.model_s = pool_model(n, mode.workers, y)
            elif mode.family == "sync":
                cell.model_s = n * y
            budget = plan.sequential_budget_s if mode.family == "sync" else plan.budget_s
            yield _budgeted(Job(cell, mode, work, Echo(y), servers[0]), budget)


def throughput(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    server = servers[0]
    modes = [mode for mode in modes if mode.family != "shared"]  # blob's alone
    for mode in modes:
        work = Workload(plan.sequential_calls, 1, 0.0)
        yield Job(Cell("throughput", "sequential", mode.name, server, work.total, 1, 0.0), mode, work,
                  Echo(0.0), server)
    for mode in modes:
        if mode.family in ("sync", "raw-socket"):
            continue
        c = plan.concurrency
        work = Workload(plan.concurrent_calls, c, 0.0)
        if mode.family == "threads":  # one connection per thread: fewer calls, same concurrency
            work = Workload(plan.concurrent_calls // 5, c, 0.0)
        cell = Cell("throughput", f"concurrent c={c}", mode.name, server, work.total, c, 0.0)
        yield Job(cell, mode, work, Echo(0.0), server)


def overhead(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    for mode in modes:
        if mode.family not in ("sync", "emulated", "to_thread"):
            continue
        work = Workload(plan.overhead_calls, 1, 0.0)
        cell = Cell("overhead", "zero-delay call", mode.name, servers[0], work.total, 1, 0.0)
        yield Job(cell, mode, work, Echo(0.0), servers[0])


SETUP_MODES = ("sync", "portal", "native-asyncio", "native-uvloop", "native-trio", "asyncio-protocol",
               "trio-peer", "raw-socket")


def setup(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    """Connection set-up, one after another: connect, handshake, one ``echo``, close."""
    for mode in modes:
        if mode.name not in SETUP_MODES:
            continue
        work = Workload(plan.setup_calls, 1, 0.0)
        cell = Cell("setup", "connect+call+close", mode.name, servers[0], work.total, 1, 0.0)
        yield Job(cell, mode, work, SetUp(0.0), servers[0])


SERVER_FLOOR_MODE = "asyncio-protocol"


def server_floor(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    """The reference server beside the lab's minimal one: ``echo`` from the hand-written
    asyncio client (whatever ``--modes`` says: it is the servers that are measured), one
    at a time and 100 in flight; the cells' measure is the server's CPU per request."""
    client = next(mode for mode in all_modes() if mode.name == SERVER_FLOOR_MODE)
    for server in (s for s in servers if s in FLOOR_SETUPS):
        for work in (Workload(plan.sequential_calls, 1, 0.0),
                     Workload(plan.concurrent_calls, plan.concurrency, 0.0)):
            case = "sequential" if work.inflight == 1 else f"concurrent c={work.inflight}"
            yield Job(Cell("server", case, client.name, server, work.total, work.inflight, 0.0), client, work,
                      Echo(0.0), server)


ECHO_MODES = ("threads", "emulated-pool", "native-asyncio")


def echo(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    """N requests at once, a new connection each, ``upper(text, delay=0.1)``."""
    for server in (s for s in servers if s in ECHO_SETUPS):
        for n in plan.echo_ns:
            for mode in modes:
                if mode.name not in ECHO_MODES and not mode.name.startswith("emulated-pool-w"):
                    continue
                if server == "threaded-backlog5" and mode.name != "native-asyncio":
                    continue  # the source's set-up: an asyncio client, a connection per request
                work = Workload(n, n, 0.1, timeout=max(120.0, 3 * _predicted(mode, Workload(n, n, 0.1))))
                cell = Cell("echo", f"N={n}", mode.name, server, n, n, 0.1)
                if mode.workers:
                    cell.model_s = pool_model(n, mode.workers, 0.1)
                job = _budgeted(Job(cell, mode, work, Upper(0.1), server, connections=n), plan.echo_budget_s)
                if mode.family == "threads" and n > plan.thread_connect_cap and not cell.skipped:
                    cell.skipped = True
                    cell.note = (f"skipped: {n:,} threads connecting at once; above "
                                 f"{plan.thread_connect_cap:,} CPython threads convoy on the GIL "
                                 "(docs/results.md)")
                yield job


WORDCOUNT_MODES = ("threads", "native-asyncio", "native-trio", "emulated-callback")


def wordcount(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    """N connections, each streaming words into one shared top-10 table."""
    server = servers[0]
    for n in plan.wordcount_ns:
        for mode in modes:
            if mode.name not in WORDCOUNT_MODES:
                continue
            op = WordCount(plan.words, plan.word_wait)
            streaming = plan.words * plan.word_wait
            work = Workload(n, n, 0.0, timeout=max(120.0, 20 * streaming))
            cell = Cell("wordcount", f"N={n}", mode.name, server, n, n, plan.word_wait)
            if mode.family == "native":  # a connection per stream (threads: one each already)
                op.per_request_connection = True
            if mode.family == "threads" and n > plan.thread_connect_cap:
                cell.skipped = True
                cell.note = (f"skipped: {n:,} threads connecting at once; above "
                             f"{plan.thread_connect_cap:,} CPython threads convoy on the GIL, and on "
                             "the lab's one client core one round outlasts its timeout (docs/results.md)")
            yield Job(cell, mode, work, op, server, connections=n)


BLOB_MODES = ("sync", "sync-shared", "portal", "threads", "emulated-pool", "native-asyncio", "raw-socket")


def blob(plan: Plan, modes: list[Mode], servers: list[str]) -> Iterator[Job]:
    """``ab -n 100 -c 50`` with 1 MiB answers, every byte checked."""
    for server in (s for s in servers if s in BLOB_SETUPS):
        for mode in modes:
            if mode.name not in BLOB_MODES:
                continue
            work = Workload(plan.blob_requests, plan.blob_inflight, 0.0)
            cell = Cell("blob", f"{work.total}×1MiB c={work.inflight}", mode.name, server,
                        work.total, 1 if mode.family in ("sync", "raw-socket") else work.inflight, 0.0)
            if mode.family == "threads" and SETUPS[server].model == "sequential":
                cell.skipped = True
                cell.note = ("skipped: each thread holds a connection until all are done, and a "
                             "one-at-a-time server serves one connection until it leaves")
            yield Job(cell, mode, work, Blob(MIB), server, payload_bytes=MIB)


def native_model(n: int, delay: float, per_call_s: float) -> float:
    """Y + N·c for coroutines: every call waits in parallel, CPU cost c adds up."""
    return delay + n * per_call_s


def thread_model(n: int, floor_s: float, per_call_s: float) -> float:
    """F + N·c for the thread modes: F is the ``thread-floor`` row of the same round (N
    threads released at once, each only sleeping Y, so F ≥ Y), and the calls' CPU cost
    c adds up on top."""
    return floor_s + n * per_call_s
