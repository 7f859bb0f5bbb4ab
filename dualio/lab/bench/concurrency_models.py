"""The ``models`` scenario: sequential, threads, processes, gevent and asyncio on one
CPU-bound workload (K evaluations of ``7 ** e``, the source's ``a ** b``) and one
I/O-bound workload (K calls of ``upper(delay=D)`` to the dualio service, each of the
blocking rows on a connection of its own, like the source's K downloads).

The first five rows are the source's own set-up, under the source's names:

- ``sequential``: one task after another.
- ``threads``: one thread per task.
- ``processes``: one process per task (a fork per task where the OS has fork), its result
  sent back through a pipe; at most MAX_PROCESSES tasks.
- ``gevent``: one greenlet per task, after ``monkey.patch_all()``.
- ``asyncio``: the CPU work through ``loop.run_in_executor(None, ...)`` — the default
  thread pool, ``min(32, cpu + 4)`` workers, so the GIL serialises it as it does threads —
  and the I/O as coroutines on one native ``AsyncClient`` (the source used aiohttp).

Two more rows are not in the source; they show what a pool changes:

- ``processes (pool of W)``: a ProcessPoolExecutor of W workers (the usable cores) for
  both workloads: no process start per task, but at most W calls wait at once.
- ``asyncio + process pool``: as ``asyncio``, with the CPU work on that process pool.

Every row runs the same ``cpu_task`` and ``io_task`` work and checks every result
(``ok``): each CPU result against ``pow`` modulo the same number, each answer against
the text upper-cased. Each row runs in a child process of its own, so gevent's
monkey-patching, a pool or a process per task never leaks into the next measurement.
"""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

T = TypeVar("T")

CPU_EXPONENT = 400_000
CPU_MODULUS = 1_000_003
MAX_PROCESSES = 200
"""The most tasks the ``processes`` row starts a process each for."""
POOL_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
"""Workers of the extra rows' process pool: the cores this process may run on."""

SOURCE_MODELS = ("sequential", "threads", "processes", "gevent", "asyncio")
"""The source's rows, with its set-up and names."""
PROCESS_POOL = f"processes (pool of {POOL_WORKERS})"
ASYNCIO_PROCESS_POOL = "asyncio + process pool"
MODELS = (*SOURCE_MODELS, PROCESS_POOL, ASYNCIO_PROCESS_POOL)

NOTES = {
    "sequential": "source set-up: one task after another",
    "threads": "source set-up: one thread per task",
    "processes": "source set-up: one process per task",
    "gevent": "source set-up: one greenlet per task",
    "asyncio": "source set-up: CPU via run_in_executor(None) (default thread pool), "
               "I/O on one AsyncClient",
    PROCESS_POOL: f"not in the source: a pool of {POOL_WORKERS} processes for both workloads",
    ASYNCIO_PROCESS_POOL: f"not in the source: asyncio, CPU on a pool of {POOL_WORKERS} processes",
}
"""What each row runs, in a few words: a note for its table rows."""


def cpu_task(seed: int) -> int:
    """Pure-Python big-number arithmetic, a few tens of ms: the source's ``a ** b``."""
    return int(7 ** (CPU_EXPONENT + seed) % CPU_MODULUS)


def cpu_expected(seed: int) -> int:
    """What ``cpu_task(seed)`` must return, by modular exponentiation (microseconds)."""
    return pow(7, CPU_EXPONENT + seed, CPU_MODULUS)


def io_task(host: str, port: int, delay: float, index: int) -> bool:
    """One call on a connection of its own; whether the answer is the text upper-cased."""
    from dualio_sync import Client

    text = f"io-{index}"
    with Client(host, port, timeout=60) as client:
        return client.upper(text, delay=delay) == text.upper()


def _send_result(sender: Connection, fn: Callable[..., object], args: tuple[Any, ...]) -> None:
    try:
        sender.send(fn(*args))
    finally:
        sender.close()


def process_context() -> BaseContext:
    """How the ``processes`` row starts its processes: fork where the OS has it and it is
    safe (not macOS), else spawn."""
    if "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def one_process_each(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]],
                     context: BaseContext | None = None) -> list[T | None]:
    """``fn(*args)`` for each ``args`` in a process of its own, all started at once; the
    results in order, None for a process that died without one. ValueError beyond
    MAX_PROCESSES calls."""
    if len(calls) > MAX_PROCESSES:
        raise ValueError(f"one process per task is limited to {MAX_PROCESSES} tasks, "
                         f"asked for {len(calls)}")
    context = context or process_context()
    started: list[tuple[Any, Connection]] = []
    try:
        for args in calls:
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_send_result, args=(sender, fn, args))  # type: ignore[attr-defined]
            process.start()
            sender.close()
            started.append((process, receiver))
        results: list[T | None] = []
        for _, receiver in started:
            try:
                results.append(receiver.recv())
            except EOFError:
                results.append(None)
        return results
    finally:
        for process, receiver in started:
            receiver.close()
            process.join()


def one_thread_each(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]]) -> list[T | None]:
    """``fn(*args)`` for each ``args`` on a thread of its own, all started at once; the
    results in order, None for a call that raised."""
    results: list[T | None] = [None] * len(calls)

    def run(index: int, args: tuple[Any, ...]) -> None:
        results[index] = fn(*args)

    threads = [threading.Thread(target=run, args=(i, args)) for i, args in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _checked(cpu: Sequence[object], io: Sequence[object]) -> bool:
    return (list(cpu) == [cpu_expected(i) for i in range(len(cpu))]
            and all(answer is True for answer in io))


def _timed(fn: Callable[[], Sequence[object]]) -> tuple[float, Sequence[object]]:
    started = time.perf_counter()
    results = fn()
    return time.perf_counter() - started, results


def _run(model: str, host: str, port: int, calls: int, delay: float) -> dict[str, object]:
    import dualio_sync  # noqa: F401  (imported once here, not in every timed task or child)

    seeds = range(calls)
    io_args = [(host, port, delay, i) for i in seeds]
    cpu: tuple[float, Sequence[object]]
    io: tuple[float, Sequence[object]]
    if model == "sequential":
        cpu = _timed(lambda: [cpu_task(i) for i in seeds])
        io = _timed(lambda: [io_task(*args) for args in io_args])
    elif model == "threads":
        cpu = _timed(lambda: one_thread_each(cpu_task, [(i,) for i in seeds]))
        io = _timed(lambda: one_thread_each(io_task, io_args))
    elif model == "processes":
        cpu = _timed(lambda: one_process_each(cpu_task, [(i,) for i in seeds]))
        io = _timed(lambda: one_process_each(io_task, io_args))
    elif model == "gevent":
        import gevent.pool  # type: ignore[import-untyped, unused-ignore]

        group = gevent.pool.Pool(calls)
        cpu = _timed(lambda: list(group.map(cpu_task, seeds)))
        io = _timed(lambda: list(group.map(lambda args: io_task(*args), io_args)))
    elif model == PROCESS_POOL:
        with ProcessPoolExecutor(POOL_WORKERS, mp_context=process_context()) as pool:
            cpu = _timed(lambda: list(pool.map(cpu_task, seeds)))
            io = _timed(lambda: list(pool.map(io_task, *zip(*io_args, strict=True))))
    elif model == "asyncio":
        cpu, io = _asyncio(host, port, calls, delay, None)
    elif model == ASYNCIO_PROCESS_POOL:
        with ProcessPoolExecutor(POOL_WORKERS, mp_context=process_context()) as pool:
            cpu, io = _asyncio(host, port, calls, delay, pool)
    else:
        raise ValueError(f"unknown model {model!r}: choose one of {', '.join(MODELS)}")
    return {"model": model, "cpu_s": cpu[0], "io_s": io[0], "ok": _checked(cpu[1], io[1])}


def _asyncio(host: str, port: int, calls: int, delay: float, executor: Executor | None,
             ) -> tuple[tuple[float, Sequence[object]], tuple[float, Sequence[object]]]:
    """CPU work through ``run_in_executor(executor)`` (None: the loop's default thread
    pool); I/O as coroutines on one native AsyncClient."""
    import asyncio

    from dualio import AsyncClient

    async def main() -> tuple[tuple[float, Sequence[object]], tuple[float, Sequence[object]]]:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        values = await asyncio.gather(*(loop.run_in_executor(executor, cpu_task, i) for i in range(calls)))
        cpu = (time.perf_counter() - started, values)
        async with AsyncClient(host, port, timeout=60) as client:
            started = time.perf_counter()
            texts = [f"io-{i}" for i in range(calls)]
            answers = await asyncio.gather(*(client.upper(t, delay=delay) for t in texts))
            elapsed = time.perf_counter() - started
            io = (elapsed, [a == t.upper() for a, t in zip(answers, texts, strict=True)])
        return cpu, io

    return asyncio.run(main())


def missing(model: str) -> str:
    """Why ``model`` cannot run here ("" if it can)."""
    if model == "gevent" and importlib.util.find_spec("gevent") is None:
        return "gevent is not installed (pip install 'dualio[gevent]')"
    return ""


def measure(
    model: str, host: str, port: int, calls: int, delay: float, timeout: float = 300
) -> dict[str, object]:
    """Run one model (one of MODELS) in a fresh child process: its result (``cpu_s``,
    ``io_s``, ``ok``), or ``{"error": ...}``."""
    if model not in MODELS:
        return {"error": f"unknown model {model!r}: choose one of {', '.join(MODELS)}"}
    if model == "processes" and calls > MAX_PROCESSES:
        return {"error": f"processes: one process per task is limited to {MAX_PROCESSES} tasks, "
                         f"asked for {calls}"}
    if calls < 1 or not delay >= 0:
        return {"error": f"calls must be >= 1 and delay >= 0, got {calls} and {delay}"}
    code = (
        ("from gevent import monkey; monkey.patch_all()\n" if model == "gevent" else "")
        + "import json, sys\nfrom dualio.lab.bench.concurrency_models import _run\n"
        + f"print(json.dumps(_run({model!r}, {host!r}, {port}, {calls}, {delay})))\n"
    )
    try:
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"{model} did not finish within {timeout:.0f} s"}
    if run.returncode != 0:
        lines = run.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit code {run.returncode}"}
    result: dict[str, object] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


if __name__ == "__main__":  # pragma: no cover - manual use
    print(measure(sys.argv[1], "127.0.0.1", int(sys.argv[2]), 10, 0.1))
