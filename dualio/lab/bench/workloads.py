"""Run K calls with at most C in flight, and record what happened to each."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import anyio

from dualio.lab.bench.machine_limits import ThreadsNotStarted, explain, is_limit
from dualio_transports.running_loop import LoopHandle


@dataclass(frozen=True)
class Workload:
    total: int  # K calls
    inflight: int  # at most C at once
    delay: float  # Y seconds spent on the server per call
    timeout: float = 120.0


@dataclass
class Outcome:
    wall: float = 0.0
    cpu: float = 0.0  # this process's CPU seconds over the same span (the client's own work)
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    wrong: int = 0
    limited: int = 0  # calls stopped by a machine or server limit, each with its reason
    first_error: str = ""
    limit: str = ""

    def failed(self, exc: BaseException) -> None:
        if is_limit(exc):
            self.limited += 1
            self.limit = self.limit or explain(exc)
            return
        self.errors += 1
        if not self.first_error:
            self.first_error = explain(exc)


R = TypeVar("R")


def run_on(backend: str, main: Callable[[], Awaitable[R]]) -> R:
    """Run ``main`` on ``backend``: asyncio, uvloop (asyncio's with uvloop's loop) or trio;
    "" is asyncio."""
    if backend == "uvloop":
        return anyio.run(main, backend="asyncio", backend_options={"use_uvloop": True})
    return anyio.run(main, backend=backend or "asyncio")


AsyncCall = Callable[[int], Awaitable[bool]]
SyncCall = Callable[[int], bool]


async def drive_async(call: AsyncCall, work: Workload) -> Outcome:
    """C tasks share the K calls; wall time from the first call to the last answer."""
    outcome = Outcome()
    indexes = iter(range(work.total))

    async def worker() -> None:
        for index in indexes:
            started = time.perf_counter()
            try:
                ok = await call(index)
            except Exception as exc:
                outcome.failed(exc)
                continue
            outcome.latencies.append(time.perf_counter() - started)
            if not ok:
                outcome.wrong += 1

    count = min(work.inflight, work.total)
    started, cpu = time.perf_counter(), time.process_time()
    if LoopHandle.current().backend == "asyncio":  # a plain gather: the cheapest driver
        async with asyncio.timeout(work.timeout):
            await asyncio.gather(*(worker() for _ in range(count)))
    else:  # trio: a nursery is the plain driver
        with anyio.fail_after(work.timeout):
            async with anyio.create_task_group() as tasks:
                for _ in range(count):
                    tasks.start_soon(worker)
    outcome.wall = time.perf_counter() - started
    outcome.cpu = time.process_time() - cpu
    return outcome


THREADS_SET_UP_FLOOR_S = 60.0


def drive_threads(make_call: Callable[[], tuple[SyncCall, Callable[[], None]]], work: Workload) -> Outcome:
    """C threads, each with what ``make_call`` gives it (its own connection, say).

    Set-up happens before the clock starts; a barrier releases all threads at once.
    Starting and setting up all threads has a deadline (``max(60 s, C / 100 s)``): past
    it, or on a thread, file or connect limit, no thread makes a call and every call
    counts as limited; a set-up that fails otherwise, and threads still running after
    the workload's timeout, are errors. Never a crash or a hang.
    """
    outcome = Outcome()
    lock = threading.Lock()
    indexes = iter(range(work.total))
    count = min(work.inflight, work.total)
    # The clock starts when the barrier trips and stops at the last thread's last answer,
    # both taken on worker threads: the main thread may get the GIL late with many threads.
    started: list[float] = []
    finished: list[float] = []
    cpu_started: list[float] = []

    def start_clocks() -> None:
        started.append(time.perf_counter())
        cpu_started.append(time.process_time())

    ready = threading.Barrier(count + 1, action=start_clocks)
    latencies: list[list[float]] = []

    stopped_by_limit = False  # a limit met while setting up stopped every thread's calls

    def set_up_failed(exc: BaseException) -> None:
        nonlocal stopped_by_limit
        with lock:
            outcome.failed(exc)
            stopped_by_limit = stopped_by_limit or is_limit(exc)
        ready.abort()

    def worker() -> None:
        mine: list[float] = []
        try:
            call, close = make_call()
        except Exception as exc:
            set_up_failed(exc)
            return
        try:
            ready.wait()
            for index in indexes:
                began = time.perf_counter()
                try:
                    ok = call(index)
                except Exception as exc:
                    with lock:
                        outcome.failed(exc)
                    continue
                mine.append(time.perf_counter() - began)
                if not ok:
                    with lock:
                        outcome.wrong += 1
        except threading.BrokenBarrierError:
            pass
        finally:
            done_at = time.perf_counter()
            close()
            with lock:
                latencies.append(mine)
                finished.append(done_at)

    threads: list[threading.Thread] = []
    set_up_s = max(THREADS_SET_UP_FLOOR_S, count / 100)  # to start and set up every thread
    set_up_by = time.perf_counter() + set_up_s
    try:
        for _ in range(count):
            if time.perf_counter() > set_up_by:
                set_up_failed(ThreadsNotStarted(
                    f"only {len(threads):,} of {count:,} threads started within {set_up_s:g} s"))
                break
            thread = threading.Thread(target=worker, daemon=True)
            thread.start()
            threads.append(thread)
    except RuntimeError as exc:  # can't start new thread
        set_up_failed(ThreadsNotStarted(f"thread limit reached after {len(threads)} threads: {exc}"))
    try:
        ready.wait(timeout=max(0.0, set_up_by - time.perf_counter()))
    except threading.BrokenBarrierError:
        pass
    deadline = time.perf_counter() + work.timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.perf_counter()))
    if started and finished:
        outcome.wall = max(finished) - started[0]
        outcome.cpu = time.process_time() - cpu_started[0]
    if any(thread.is_alive() for thread in threads):
        outcome.failed(TimeoutError(f"threads still running after {work.timeout}s"))
    for mine in latencies:
        outcome.latencies.extend(mine)
    missing = work.total - len(outcome.latencies) - outcome.errors - outcome.limited
    if missing > 0 and stopped_by_limit:
        outcome.limited += missing
    elif missing > 0 and not outcome.errors:
        outcome.failed(RuntimeError(f"{missing} calls never ran"))
    return outcome
