"""The ``models`` scenario: sequential, threads, processes, gevent and asyncio on one
I/O-bound workload (calls to the dualio service) and one CPU-bound workload.

Each model runs in a child process of its own, so gevent's monkey-patching, a
process pool or a thread pool never leaks into the next measurement.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

MODELS = ("sequential", "threads", "processes", "gevent", "asyncio")
CPU_EXPONENT = 400_000


def cpu_task(seed: int) -> int:
    """Pure-Python big-number arithmetic, a few tens of ms: the source's ``a ** b``."""
    return int(7 ** (CPU_EXPONENT + seed) % 1_000_003)


def io_task(host: str, port: int, delay: float, index: int) -> bool:
    from dualio_sync import Client

    text = f"io-{index}"
    with Client(host, port, timeout=60) as client:
        return client.upper(text, delay=delay) == text.upper()


def _timed(fn: Callable[[], list[object]]) -> tuple[float, bool]:
    started = time.perf_counter()
    results = fn()
    return time.perf_counter() - started, all(bool(r) for r in results)


def _run(model: str, host: str, port: int, calls: int, delay: float) -> dict[str, object]:
    def io(index: int) -> bool:
        return io_task(host, port, delay, index)

    if model == "sequential":
        cpu = _timed(lambda: [cpu_task(i) for i in range(calls)])
        ios = _timed(lambda: [io(i) for i in range(calls)])
    elif model == "threads":
        with ThreadPoolExecutor(calls) as pool:
            cpu = _timed(lambda: list(pool.map(cpu_task, range(calls))))
            ios = _timed(lambda: list(pool.map(io, range(calls))))
    elif model == "processes":
        with ProcessPoolExecutor() as processes:
            cpu = _timed(lambda: list(processes.map(cpu_task, range(calls))))
            ios = _timed(lambda: list(processes.map(io_task, [host] * calls, [port] * calls,
                                                    [delay] * calls, range(calls))))
    elif model == "gevent":
        import gevent.pool  # type: ignore[import-untyped, unused-ignore]

        group = gevent.pool.Pool(calls)
        cpu = _timed(lambda: list(group.map(cpu_task, range(calls))))
        ios = _timed(lambda: list(group.map(io, range(calls))))
    else:
        cpu, ios = _asyncio(host, port, calls, delay)
    return {"model": model, "cpu_s": cpu[0], "io_s": ios[0], "ok": cpu[1] and ios[1]}


def _asyncio(host: str, port: int, calls: int, delay: float) -> tuple[tuple[float, bool], tuple[float, bool]]:
    import asyncio

    from dualio import AsyncClient

    async def main() -> tuple[tuple[float, bool], tuple[float, bool]]:
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor() as pool:
            started = time.perf_counter()
            values = await asyncio.gather(*(loop.run_in_executor(pool, cpu_task, i) for i in range(calls)))
            cpu = (time.perf_counter() - started, all(v is not None for v in values))
        async with AsyncClient(host, port, timeout=60) as client:
            started = time.perf_counter()
            texts = [f"io-{i}" for i in range(calls)]
            answers = await asyncio.gather(*(client.upper(t, delay=delay) for t in texts))
            ios = (time.perf_counter() - started, answers == [t.upper() for t in texts])
        return cpu, ios

    return asyncio.run(main())


def missing(model: str) -> str:
    if model == "gevent" and importlib.util.find_spec("gevent") is None:
        return "gevent is not installed (pip install 'dualio[gevent]')"
    return ""


def measure(
    model: str, host: str, port: int, calls: int, delay: float, timeout: float = 300
) -> dict[str, object]:
    """Run one model in a fresh child process; its JSON result, or ``{"error": ...}``."""
    code = (
        ("from gevent import monkey; monkey.patch_all()\n" if model == "gevent" else "")
        + "import json, sys\nfrom dualio.lab.models import _run\n"
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
