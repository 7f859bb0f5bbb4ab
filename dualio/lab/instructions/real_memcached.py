"""Instructions per get against a real memcached, counted by callgrind: the memcached client
of examples/memcached (dualio's toolkit) beside pymemcache and aiomcache.

    python -m dualio.lab.instructions.real_memcached [--calls 400] [--figures NAMES]

Counted as :mod:`dualio.lab.instructions.real_redis` counts GETs: memcached started on a
free port of 127.0.0.1 (not under valgrind), one key set to a 16-byte value, callgrind on
the client process, a marker before the first get and after the last, loops of N and 2N
gets twice, ``(2N − N) / N``.

- ``memcached-sync``: the example's blocking face (``Memcache.get``), one at a time;
- ``memcached-native``: its async face on asyncio (``AsyncMemcache.get``), one at a time;
- ``memcached-native-100``: the same with 100 gets in flight on its one connection;
- ``memcached-raw``: the floor, a blocking socket: send ``get``, recv, slice the value;
- ``pymemcache``: ``pymemcache.Client.get``, one at a time;
- ``aiomcache``: ``aiomcache.Client.get`` on asyncio, one at a time; ``aiomcache-100``:
  100 in flight (its pool, up to 100 connections).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dualio.lab.instructions.call_loops import Clock, _check, _per_call
from dualio.lab.instructions.counter import (
    Count,
    Figure,
    ValgrindMissing,
    _compile_first,
    _dump_total,
    _loops,
    child,
    count,
    table,
    valgrind,
)
from dualio.lab.instructions.fake_peers import PAYLOAD

MODULE = "dualio.lab.instructions.real_memcached"
ADDRESS = "DUALIO_LAB_MEMCACHED"
KEY = "key"
DUALIO = {figure.name: figure for figure in (
    Figure("memcached-sync", "examples/memcached Memcache.get, blocking transport", "memcached-raw",
           "sync_get", module=MODULE),
    Figure("memcached-native", "examples/memcached AsyncMemcache.get, asyncio native, 1 in flight",
           "memcached-raw", "native_get", (1,), module=MODULE),
    Figure("memcached-native-100", "AsyncMemcache.get, asyncio native, 100 in flight on one connection",
           "memcached-raw", "native_get", (100,), module=MODULE),
    Figure("memcached-raw", "a blocking socket: send get, recv, slice the value", None, "raw_get",
           module=MODULE),
)}
PEERS = {figure.name: figure for figure in (
    Figure("pymemcache", "pymemcache.Client.get", "memcached-raw", "pymemcache_get", ours=False,
           module=MODULE),
    Figure("aiomcache", "aiomcache.Client.get, 1 in flight", "memcached-raw", "aiomcache_get", (1,),
           ours=False, module=MODULE),
    Figure("aiomcache-100", "aiomcache.Client.get, 100 in flight (a pool of 100)", "memcached-raw",
           "aiomcache_get", (100,), ours=False, module=MODULE),
)}
FIGURES = {**DUALIO, **PEERS}
NEEDS = {"pymemcache": "pymemcache", "aiomcache": "aiomcache", "aiomcache-100": "aiomcache"}
GOALS = {"memcached-sync": 46_800, "memcached-native": 75_000, "memcached-native-100": 50_000}
"""Instructions per get each figure should come under (pymemcache's; aiomcache's, less)."""


def _address() -> tuple[str, int]:
    host, _, port = os.environ[ADDRESS].rpartition(":")
    return host, int(port)


# -- the measured loops (in the callgrind process) -------------------------------------------

def raw_get(calls: int, clock: Clock) -> float:
    """The least a blocking client does per get on a socket."""
    command = b"get %s\r\n" % KEY.encode()
    with socket.create_connection(_address()) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        started = clock()
        for _ in range(calls):
            sock.sendall(command)
            data = sock.recv(65536)
            while not data.endswith(b"END\r\n"):
                data += sock.recv(65536)
            _check(data[data.index(b"\r\n") + 2 : -7])
        return (clock() - started) / calls


def sync_get(calls: int, clock: Clock) -> float:
    from examples.memcached.sync import Memcache

    with Memcache(*_address()) as client:
        get = client.get
        _check(get(KEY))
        started = clock()
        for _ in range(calls):
            _check(get(KEY))
        return (clock() - started) / calls


async def native_get(calls: int, in_flight: int, clock: Clock) -> float:
    from examples.memcached.aio import AsyncMemcache

    async with AsyncMemcache(*_address()) as client:
        get = client.get
        return await _per_call(lambda: get(KEY), calls, in_flight, clock)


def pymemcache_get(calls: int, clock: Clock) -> float:
    from pymemcache.client.base import Client  # type: ignore[import-untyped, unused-ignore]

    client = Client(_address())
    try:
        _check(client.get(KEY))
        started = clock()
        for _ in range(calls):
            _check(client.get(KEY))
        return (clock() - started) / calls
    finally:
        client.close()


async def aiomcache_get(calls: int, in_flight: int, clock: Clock) -> float:
    import asyncio

    import aiomcache

    client = aiomcache.Client(*_address(), pool_size=max(2, in_flight))
    try:
        key = KEY.encode()
        for answer in await asyncio.gather(*(client.get(key) for _ in range(in_flight))):
            _check(answer)
        return await _per_call(lambda: client.get(key), calls, in_flight, clock)
    finally:
        await client.close()


# -- the server, and counting -------------------------------------------------------------

@contextmanager
def running_memcached() -> Iterator[tuple[str, int]]:
    """A memcached on a free port, its key set to the 16-byte value; stopped by its PID."""
    executable = shutil.which("memcached")
    if executable is None:
        raise SystemExit("error: memcached is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([executable, "-u", "nobody", "-l", "127.0.0.1", "-p", str(port), "-U", "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(500):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"set %s 0 0 %d\r\n%s\r\n" % (KEY.encode(), len(PAYLOAD), PAYLOAD))
                    if sock.recv(64) == b"STORED\r\n":
                        break
            except OSError:
                time.sleep(0.01)
        else:
            raise SystemExit("error: memcached did not start")
        yield "127.0.0.1", port
    finally:
        process.terminate()
        process.wait(10)


def measure(calls: int, names: list[str]) -> dict[str, Count]:
    valgrind()
    _compile_first()
    compileall.compile_dir(Path(__file__).resolve().parents[3] / "examples", quiet=2)
    groups = [group for group in ([n for n in names if n in DUALIO], [n for n in names if n in PEERS])
              if group]
    counts: dict[str, Count] = {}
    with running_memcached() as (host, port), \
            tempfile.TemporaryDirectory(prefix="dualio-callgrind-") as scratch:
        env = {ADDRESS: f"{host}:{port}", "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
        for name, loops in _loops(Path(scratch), groups, calls, env, MODULE):
            counts[name] = count(name, [(n, _dump_total(dump)) for n, dump in loops], check=False)
    return {name: counts[name] for name in FIGURES if name in counts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400, help="N: each loop runs N and 2N gets, twice")
    parser.add_argument("--figures", metavar="NAMES",
                        help=f"comma-separated (default: all): {', '.join(FIGURES)}")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.calls < 100 or args.calls % 100:
        parser.error("--calls must be a multiple of 100 (the 100-in-flight figures)")
    if args.child:
        child(args.child.split(","), args.calls, FIGURES)
        return 0
    names = args.figures.split(",") if args.figures else list(FIGURES)
    unknown = [name for name in names if name not in FIGURES]
    if unknown:
        parser.error(f"unknown figures: {', '.join(unknown)}")
    names = [*dict.fromkeys([*names, "memcached-raw"])]
    skipped = {n: f"{NEEDS[n]} is not installed" for n in names
               if n in NEEDS and importlib.util.find_spec(NEEDS[n]) is None}
    try:
        counts = measure(args.calls, [n for n in names if n not in skipped])
    except ValgrindMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"instructions per get of a 16-byte value against memcached on 127.0.0.1 (callgrind, the client "
          f"process only; (2N − N) / N with N = {args.calls}, twice; {sys.version.split()[0]})")
    print(table(counts, FIGURES))
    for name, reason in skipped.items():
        print(f"{name}: not counted, {reason}")
    for name, goal in GOALS.items():
        if name in counts:
            per_call = counts[name].per_call
            verdict = "met" if per_call <= goal else f"missed by {per_call / goal - 1:.0%}"
            print(f"goal {name:<22} {per_call:>9,.0f} ≤ {goal:,}  {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
