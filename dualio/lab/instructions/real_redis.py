"""Instructions per GET against a real redis-server, counted by callgrind.

    python -m dualio.lab.instructions.real_redis [--calls 400] [--json FILE]

The gated Redis figures (``redis-sync``, ``redis-native``, ``redis-native-100`` of
``python -m dualio.lab.instructions``) run on a fake peer, so they hold the client's
Python and none of a socket's system calls. Here the client talks to a redis-server
over loopback TCP, as a program does. The command starts redis-server itself
(``--save "" --appendonly no``, on a free port of 127.0.0.1), sets one key to a 16-byte
value, and counts each figure as :mod:`dualio.lab.instructions.counter` does: callgrind
(every thread of the client process), a marker just before the first GET and just after
the last, loops of N and 2N GETs twice, ``(2N − N) / N``. The server is not run under
valgrind: only the client's instructions are counted. It is stopped by its PID at the end.

- ``redis-sync``: ``dualio_sync.redis.Redis.get``, the blocking transport, one GET at a time;
- ``redis-native``: ``dualio.redis.Redis.get`` on asyncio (``transport="native"``), one at a time;
- ``redis-native-100``: the same with 100 GETs in flight on the one connection, per GET;
- ``redis-raw``: the floor, a blocking socket: send the GET, recv its reply, read the
  bulk string.

The server's timing moves the client's path a little (whether a reply is there at the
first read, how many replies one read takes, the idle check), so these figures are
reported, with their spread and the goals beside them, and never judged by the gate.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dualio.lab.common.redis_server import RedisServer, RedisServerError, start_redis
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
from dualio.lab.instructions.fake_peers import GET_COMMAND, GET_REPLY, KEY, PAYLOAD, read_bulk
from dualio.redis import Redis as AsyncRedis
from dualio_sync.redis import Redis as BlockingRedis

MODULE = "dualio.lab.instructions.real_redis"
ADDRESS = "DUALIO_LAB_REDIS"
"""The measured process's environment variable: the server's ``host:port``."""

FIGURES = {figure.name: figure for figure in (
    Figure("redis-sync", "dualio_sync.redis.Redis.get, blocking transport", "redis-raw", "sync_get",
           module=MODULE),
    Figure("redis-native", "dualio.redis.Redis.get, asyncio native, 1 in flight", "redis-raw",
           "native_get", (1,), module=MODULE),
    Figure("redis-native-100", "dualio.redis.Redis.get, asyncio native, 100 in flight on one connection",
           "redis-raw", "native_get", (100,), module=MODULE),
    Figure("redis-raw", "a blocking socket: send GET, recv, read the bulk string", None, "raw_get",
           module=MODULE),
)}
GOALS = {"redis-sync": 60_000, "redis-native": 95_000, "redis-native-100": 60_000}
"""Instructions per GET each figure should come under."""


# -- the measured loops (in the callgrind process) -------------------------------------------

def _address() -> tuple[str, int]:
    host, _, port = os.environ[ADDRESS].rpartition(":")
    return host, int(port)


def raw_get(calls: int, clock: Clock) -> float:
    """The least a blocking client does per GET on a socket."""
    with socket.create_connection(_address()) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        size = len(GET_REPLY)
        started = clock()
        for _ in range(calls):
            sock.sendall(GET_COMMAND)
            data = sock.recv(65536)
            while len(data) < size:
                data += sock.recv(65536)
            _check(read_bulk(data)[0])
        return (clock() - started) / calls


def sync_get(calls: int, clock: Clock) -> float:
    """``dualio_sync.redis.Redis.get``, one at a time."""
    with BlockingRedis(*_address()) as redis:
        get = redis.get
        started = clock()
        for _ in range(calls):
            _check(get(KEY))
        return (clock() - started) / calls


async def native_get(calls: int, in_flight: int, clock: Clock) -> float:
    """``dualio.redis.Redis.get`` on asyncio's fast path, ``in_flight`` at a time."""
    async with AsyncRedis(*_address()) as redis:
        get = redis.get
        return await _per_call(lambda: get(KEY), calls, in_flight, clock)


# -- the server ---------------------------------------------------------------------------

@contextmanager
def running_server(executable: str | None = None) -> Iterator[RedisServer]:
    """A redis-server, its key set to the 16-byte value every GET reads; stopped at the end."""
    server = start_redis(executable)
    try:
        with BlockingRedis(server.host, server.port) as redis:
            redis.set(KEY, PAYLOAD)
        yield server
    finally:
        server.stop()


# -- counting -----------------------------------------------------------------------------

def measure(calls: int, executable: str | None = None) -> dict[str, Count]:
    """Instructions per GET of every figure, in one callgrind process, against a
    redis-server started here. The estimates' spread is reported, not checked."""
    valgrind()
    _compile_first()
    counts: dict[str, Count] = {}
    with running_server(executable) as server, \
            tempfile.TemporaryDirectory(prefix="dualio-callgrind-") as scratch:
        env = {ADDRESS: f"{server.host}:{server.port}"}
        for name, loops in _loops(Path(scratch), [list(FIGURES)], calls, env, MODULE):
            totals = [(n, _dump_total(dump)) for n, dump in loops]
            counts[name] = count(name, totals, check=False)
    return counts


def report(counts: dict[str, Count]) -> str:
    lines = [table(counts, FIGURES), "", f"{'goal':<20} {'instr/GET':>11} {'goal':>10}"]
    for name, goal in GOALS.items():
        if name in counts:
            per_call = counts[name].per_call
            verdict = "met" if per_call <= goal else f"missed by {per_call / goal - 1:.0%}"
            lines.append(f"{name:<20} {per_call:>11,.0f} {goal:>10,}  {verdict}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {MODULE}",
        description="instructions per GET, counted by callgrind, against a real redis-server",
    )
    parser.add_argument("--calls", type=int, default=400, help="N: each loop runs N and 2N GETs, twice")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--redis-server", metavar="PATH", help="the server to start (default: on the PATH)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.calls < 100 or args.calls % 100:
        parser.error("--calls must be a multiple of 100 (the 100-in-flight figure)")
    if args.child:
        child(args.child.split(","), args.calls, FIGURES)
        return 0
    try:
        counts = measure(args.calls, args.redis_server)
    except (ValgrindMissing, RedisServerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"instructions per GET of a 16-byte value against redis-server on 127.0.0.1 (callgrind, "
          f"the client process only; (2N − N) / N with N = {args.calls}, twice; "
          f"{sys.implementation.name} {sys.version.split()[0]})")
    print(report(counts))
    if args.json:
        args.json.write_text(json.dumps({name: c.per_call for name, c in counts.items()}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
