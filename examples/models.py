"""Sequential vs threads vs processes vs gevent vs asyncio, on CPU-bound and I/O-bound work.

    python examples/models.py [--calls 40] [--delay 0.25] [--exponent 300000] [--processes N]
                              [--host H --port P]

I/O: K calls of ``echo(payload, delay=D)``, each on a connection of its own (like K downloads).
CPU: K evaluations of ``pow(7, exponent)`` in pure Python (300000: about 30 ms each here).
Threads: one per call. Processes: a ProcessPoolExecutor of N (default: CPU count), each
worker with its own ``Client``. gevent (when importable): a subprocess that starts with
``monkey.patch_all()`` and runs the blocking ``Client`` in greenlets. asyncio: native
``AsyncClient`` for I/O, ``run_in_executor`` on the process pool for CPU. Starts an
embedded server (in this process) when no address is given.
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
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import nullcontext

from dualio import AsyncClient
from dualio.server.embedded import EmbeddedServer
from dualio_sync import Client

PAYLOAD = b"0123456789abcdef" * 64
SOURCE = {"sequential": (2.18, 31.4), "threads": (2.47, 7.9), "processes": (1.12, 7.22),
          "gevent": (2.23, 6.85), "asyncio": (2.23, 4.37)}
GEVENT_CHILD = """from gevent import monkey; monkey.patch_all()
import json, runpy, sys, time
import gevent
m = runpy.run_path(sys.argv[1])
host, port, k, delay, exponent = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), \
    int(sys.argv[6])

def each(fn, *args):
    return [g.get() for g in gevent.joinall([gevent.spawn(fn, *args) for _ in range(k)], raise_error=True)]

t = time.perf_counter()
cpu = each(m["cpu_task"], exponent)
t_cpu, t = time.perf_counter() - t, time.perf_counter()
io = each(m["io_task"], host, port, delay)
print(json.dumps({"cpu": t_cpu, "io": time.perf_counter() - t, "results": [cpu, io]}))
"""


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


async def asyncio_cpu(pool: ProcessPoolExecutor, k: int, exponent: int) -> list[int]:
    loop = asyncio.get_running_loop()
    return list(await asyncio.gather(*(loop.run_in_executor(pool, cpu_task, exponent) for _ in range(k))))


def timed(fn: Callable[[], list[int] | list[bool]]) -> tuple[float, list[int] | list[bool]]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", "-k", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.25, help="server-side wait per I/O call")
    parser.add_argument("--exponent", type=int, default=300_000, help="size of each pow(7, e)")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.calls < 1 or args.exponent < 1 or args.processes < 1:
        parser.error("--calls, --exponent and --processes must be >= 1")
    if args.delay < 0:
        parser.error("--delay must be >= 0")
    if (args.host is None) != (args.port is None):
        parser.error("give both --host and --port, or neither (embedded server)")
    k, d, e, w = args.calls, args.delay, args.exponent, args.processes
    expected_bits = cpu_task(e)
    rows: list[tuple[str, float | None, float | None, str]] = []

    embedded = EmbeddedServer() if args.host is None else nullcontext()
    with embedded as server:
        host = args.host or server.host  # type: ignore[union-attr]
        port = args.port or server.port  # type: ignore[union-attr]
        print(f"K={k}: CPU pow(7, {e}) / I/O echo(delay={d}) on a new connection each; server {host}:{port}")
        # spawn, not fork: this process has threads (the embedded server), which fork does not copy safely
        with ProcessPoolExecutor(w, mp_context=multiprocessing.get_context("spawn")) as pool, \
                ThreadPoolExecutor(k) as threads:
            list(pool.map(abs, range(w)))  # start the workers before timing
            runs: dict[str, tuple[Callable[[], list[int]], Callable[[], list[bool]]]] = {
                "sequential": (lambda: [cpu_task(e) for _ in range(k)],
                               lambda: [io_task(host, port, d) for _ in range(k)]),
                f"threads ({k})": (lambda: list(threads.map(cpu_task, [e] * k)),
                                   lambda: list(threads.map(io_task, [host] * k, [port] * k, [d] * k))),
                f"processes ({w})": (lambda: list(pool.map(cpu_task, [e] * k)),
                                     lambda: list(pool.map(io_task, [host] * k, [port] * k, [d] * k))),
                "asyncio": (lambda: asyncio.run(asyncio_cpu(pool, k, e)),
                            lambda: asyncio.run(asyncio_io(host, port, k, d))),
            }
            for name, (cpu, io) in runs.items():
                cpu_s, cpu_results = timed(cpu)
                io_s, io_results = timed(io)
                ok = cpu_results == [expected_bits] * k and io_results == [True] * k
                rows.append((name, cpu_s, io_s, "" if ok else "WRONG RESULTS"))
        if importlib.util.find_spec("gevent") is None:
            rows.insert(3, ("gevent", None, None, "skipped: gevent is not installed"))
        else:
            child = subprocess.run([sys.executable, "-c", GEVENT_CHILD, __file__, host, str(port), str(k),
                                    str(d), str(e)], capture_output=True, text=True, timeout=600)
            if child.returncode != 0:
                rows.insert(3, ("gevent", None, None, "FAILED: " + child.stderr.strip().splitlines()[-1]))
            else:
                out = json.loads(child.stdout)
                ok = out["results"] == [[expected_bits] * k, [True] * k]
                rows.insert(3, ("gevent", out["cpu"], out["io"], "" if ok else "WRONG RESULTS"))

    print(f"{'model':<16}{'CPU s':>8}{'I/O s':>8}{'source CPU':>12}{'source I/O':>12}  note")
    for name, *seconds, note in rows:
        src = SOURCE[name.split()[0]]
        cells = [f"{x:>8.2f}" if x is not None else f"{'-':>8}" for x in seconds]
        print(f"{name:<16}{cells[0]}{cells[1]}{src[0]:>12.2f}{src[1]:>12.2f}  {note}")
    print("source: 10 x a**b and 10 x 4 URL downloads; asyncio row used aiohttp for I/O")
    return 1 if any(note.startswith(("FAILED", "WRONG")) for *_, note in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
