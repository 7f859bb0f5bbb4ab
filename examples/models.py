"""Sequential vs threads vs processes vs gevent vs asyncio, on CPU-bound and I/O-bound work.

    python examples/models.py [--calls 40] [--delay 0.25] [--exponent 300000] [--processes N]
                              [--host H --port P]

I/O: K calls of ``echo(payload, delay=D)``, each on a connection of its own (like K downloads).
CPU: K evaluations of ``pow(7, exponent)`` in pure Python (300000: about 30 ms each here).

The first rows are the source's set-up, beside its figures: threads, one per call;
processes, one per call (forked by a subprocess that has no threads to copy); gevent
(when importable), a subprocess that starts with ``monkey.patch_all()`` and runs the
blocking ``Client`` in greenlets; asyncio, native ``AsyncClient`` for I/O and ``run_in_executor(None, ...)``
(the default thread pool) for CPU. Two rows more, not in the source: ``processes (N)``,
a ProcessPoolExecutor of N (default: CPU count) for both workloads, each worker with
its own ``Client``; ``asyncio + pool (N)``, asyncio with its CPU work on that pool.
Starts an embedded server (in this process) when no address is given.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext

from dualio import AsyncClient
from dualio.lab.bench.concurrency_models import MAX_PROCESSES, one_thread_each
from dualio.server.embedded import EmbeddedServer
from dualio_sync import Client

PAYLOAD = b"0123456789abcdef" * 64
SOURCE = {"sequential": (2.18, 31.4), "threads": (2.47, 7.9), "processes": (1.12, 7.22),
          "gevent": (2.23, 6.85), "asyncio": (2.23, 4.37)}
CHILD = """import sys
if sys.argv[1] == "gevent":
    from gevent import monkey; monkey.patch_all()
import json, multiprocessing, runpy, time
from dualio.lab.bench.concurrency_models import one_process_each
m = runpy.run_path(sys.argv[2])
host, port, k, delay, exponent = sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), \\
    int(sys.argv[7])

def each(fn, *args):
    if sys.argv[1] == "processes":  # a fork per call: this process has no threads to copy
        return one_process_each(fn, [args] * k, multiprocessing.get_context("fork"))
    import gevent
    return [g.get() for g in gevent.joinall([gevent.spawn(fn, *args) for _ in range(k)], raise_error=True)]

t = time.perf_counter()
cpu = each(m["cpu_task"], exponent)
t_cpu, t = time.perf_counter() - t, time.perf_counter()
io = each(m["io_task"], host, port, delay)
print(json.dumps({"cpu": t_cpu, "io": time.perf_counter() - t, "results": [cpu, io]}))
"""
"""Runs the gevent row (monkey-patched from the start) or the processes row (forking
from a process without the embedded server's threads) in a process of its own."""


def cpu_task(exponent: int) -> int:
    return int(pow(7, exponent)).bit_length()


def io_task(host: str, port: int, delay: float) -> bool:
    with Client(host, port) as client:
        return client.echo(PAYLOAD, delay=delay) == PAYLOAD


async def asyncio_io(host: str, port: int, k: int, delay: float) -> list[bool]:
    async def one() -> bool:
        async with AsyncClient(host, port) as client:
            return await client.echo(PAYLOAD, delay=delay) == PAYLOAD

    return list(await asyncio.gather(*(one() for _ in range(k))))


async def asyncio_cpu(pool: ProcessPoolExecutor | None, k: int, exponent: int) -> list[int]:
    """``run_in_executor(pool, ...)``; None: the loop's default thread pool."""
    loop = asyncio.get_running_loop()
    return list(await asyncio.gather(*(loop.run_in_executor(pool, cpu_task, exponent) for _ in range(k))))


def timed(fn: Callable[[], Sequence[object]]) -> tuple[float, Sequence[object]]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def in_child(row: str, host: str, port: int, k: int, d: float, e: int,
             expected_bits: int) -> tuple[float | None, float | None, str]:
    """The gevent or processes row, run by CHILD: (CPU s, I/O s, note)."""
    if row == "gevent" and importlib.util.find_spec("gevent") is None:
        return None, None, "skipped: gevent is not installed"
    if row == "processes" and "fork" not in multiprocessing.get_all_start_methods():
        return None, None, "skipped: no fork on this system"
    child = subprocess.run([sys.executable, "-c", CHILD, row, __file__, host, str(port), str(k),
                            str(d), str(e)], capture_output=True, text=True, timeout=600)
    if child.returncode != 0:
        return None, None, "FAILED: " + child.stderr.strip().splitlines()[-1]
    out = json.loads(child.stdout)
    ok = out["results"] == [[expected_bits] * k, [True] * k]
    return out["cpu"], out["io"], "" if ok else "WRONG RESULTS"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", "-k", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.25, help="server-side wait per I/O call")
    parser.add_argument("--exponent", type=int, default=300_000, help="size of each pow(7, e)")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                        help="workers of the process pool rows")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.calls < 1 or args.exponent < 1 or args.processes < 1:
        parser.error("--calls, --exponent and --processes must be >= 1")
    if args.calls > MAX_PROCESSES:
        parser.error(f"--calls must be <= {MAX_PROCESSES}: the processes row starts one per call")
    if args.delay < 0:
        parser.error("--delay must be >= 0")
    if (args.host is None) != (args.port is None):
        parser.error("give both --host and --port, or neither (embedded server)")
    k, d, e, w = args.calls, args.delay, args.exponent, args.processes
    expected_bits = cpu_task(e)
    rows: dict[str, tuple[float | None, float | None, str]] = {}

    embedded = EmbeddedServer() if args.host is None else nullcontext()
    with embedded as server:
        host = args.host or server.host  # type: ignore[union-attr]
        port = args.port or server.port  # type: ignore[union-attr]
        print(f"K={k}: CPU pow(7, {e}) / I/O echo(delay={d}) on a new connection each; server {host}:{port}")
        # spawn, not fork: this process has threads (the embedded server), which fork does not copy safely
        with ProcessPoolExecutor(w, mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(abs, range(w)))  # start the workers before timing
            runs: dict[str, tuple[Callable[[], Sequence[object]], Callable[[], Sequence[object]]]] = {
                "sequential": (lambda: [cpu_task(e) for _ in range(k)],
                               lambda: [io_task(host, port, d) for _ in range(k)]),
                f"threads ({k})": (lambda: one_thread_each(cpu_task, [(e,)] * k),
                                   lambda: one_thread_each(io_task, [(host, port, d)] * k)),
                "asyncio": (lambda: asyncio.run(asyncio_cpu(None, k, e)),
                            lambda: asyncio.run(asyncio_io(host, port, k, d))),
                f"processes ({w})": (lambda: list(pool.map(cpu_task, [e] * k)),
                                     lambda: list(pool.map(io_task, [host] * k, [port] * k, [d] * k))),
                f"asyncio + pool ({w})": (lambda: asyncio.run(asyncio_cpu(pool, k, e)),
                                          lambda: asyncio.run(asyncio_io(host, port, k, d))),
            }
            for name, (cpu, io) in runs.items():
                cpu_s, cpu_results = timed(cpu)
                io_s, io_results = timed(io)
                ok = list(cpu_results) == [expected_bits] * k and list(io_results) == [True] * k
                rows[name] = (cpu_s, io_s, "" if ok else "WRONG RESULTS")
        rows["processes"] = in_child("processes", host, port, k, d, e, expected_bits)
        rows["gevent"] = in_child("gevent", host, port, k, d, e, expected_bits)

    order = ["sequential", f"threads ({k})", "processes", "gevent", "asyncio",
             f"processes ({w})", f"asyncio + pool ({w})"]
    print(f"{'model':<20}{'CPU s':>8}{'I/O s':>8}{'source CPU':>12}{'source I/O':>12}  note")
    for name in order:
        *seconds, note = rows[name]
        cells = [f"{x:>8.2f}" if x is not None else f"{'-':>8}" for x in seconds]
        key = name.split()[0]
        src = (f"{SOURCE[key][0]:>12.2f}{SOURCE[key][1]:>12.2f}" if name in order[:5]
               else f"{'-':>12}{'-':>12}")
        print(f"{name:<20}{cells[0]}{cells[1]}{src}  {note}")
    print("source: 10 x a**b and 10 x 4 URL downloads; asyncio row used aiohttp for I/O")
    print("the first five rows are the source's set-up: one thread / process / greenlet per call,")
    print("asyncio's CPU work on the default thread pool; the last two, not in the source, use a")
    print(f"pool of {w} processes for the CPU work (and for the I/O in 'processes ({w})')")
    return 1 if any(note.startswith(("FAILED", "WRONG")) for *_, note in rows.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
