"""Instructions per GET against a real redis-server, counted by callgrind.

    python -m dualio.lab.instructions.real_redis [--calls 400] [--figures NAMES] [--json FILE]

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
- ``redis-trio``: ``dualio.redis.Redis.get`` on trio (the anyio transport), one at a time;
- ``redis-raw``: the floor, a blocking socket: send the GET, recv its reply, read the
  bulk string;
- ``trio-floor``: trio's least for a GET whose wait has a timeout: a task sends on the
  socket, waits for it in a ``trio.CancelScope`` with a deadline
  (``trio.lowlevel.wait_readable``), and receives; ``trio-floor-unbounded``: the same wait
  with no scope (no timeout); ``trio-floor-reader``: a reader task with one long-lived
  scope reads and reschedules the caller, which parks with no scope of its own.

Beside them, counted the same way against the same server, the peers a program could use
instead (its connection made, and its first GET answered, before the first marker):

- ``redis-py-sync``: ``redis.Redis(host, port, protocol=3).get``, one at a time; redis-py
  parses the replies with hiredis, which it picks by itself when hiredis is installed;
- ``redis-py-asyncio``: ``redis.asyncio.Redis(..., protocol=3).get``, one at a time;
- ``redis-py-asyncio-100``: the same with 100 GETs in flight (redis-py's pool gives each
  its own connection);
- ``coredis``: ``coredis.Redis(host, port).get`` (RESP3), one at a time;
- ``glide-sync``: ``glide_sync.GlideClient.get``, one at a time;
- ``glide-async``: ``glide.GlideClient.get`` on asyncio, one at a time.

Glide does its I/O in Rust threads of the client process: callgrind counts them with the
Python thread, as it counts every thread. A peer whose package is not installed on this
Python is left out, and the report says why. The peers' figures are reported beside
dualio's and never judged: ``GOALS`` are dualio's alone. The peers run in a callgrind
process of their own, beside dualio's figures' process, so importing them does not move
dualio's counts.

The server's timing moves the client's path a little (whether a reply is there at the
first read, how many replies one read takes, the idle check), so these figures are
reported, with their spread and the goals beside them, and never judged by the gate.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

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
from dualio.redis import ClientCache
from dualio.redis import Redis as AsyncRedis
from dualio_sync.redis import Redis as BlockingRedis

MODULE = "dualio.lab.instructions.real_redis"
ADDRESS = "DUALIO_LAB_REDIS"
"""The measured process's environment variable: the server's ``host:port``."""

DUALIO = {figure.name: figure for figure in (
    Figure("redis-sync", "dualio_sync.redis.Redis.get, blocking transport", "redis-raw", "sync_get",
           module=MODULE),
    Figure("redis-native", "dualio.redis.Redis.get, asyncio native, 1 in flight", "redis-raw",
           "native_get", (1,), module=MODULE),
    Figure("redis-native-100", "dualio.redis.Redis.get, asyncio native, 100 in flight on one connection",
           "redis-raw", "native_get", (100,), module=MODULE),
    Figure("redis-sync-cached", "dualio_sync.redis.Redis.get, a client-side cache's hit", "redis-raw",
           "sync_cached_get", module=MODULE),
    Figure("redis-native-cached", "dualio.redis.Redis.get on asyncio, a client-side cache's hit", "redis-raw",
           "native_cached_get", module=MODULE),
    Figure("redis-sync-pipeline", "dualio_sync.redis.Redis.pipeline of 100 GETs, per GET", "redis-raw",
           "sync_pipeline_get", module=MODULE),
    Figure("redis-native-pipeline", "dualio.redis.Redis.pipeline of 100 GETs on asyncio, per GET",
           "redis-raw", "native_pipeline_get", module=MODULE),
    Figure("redis-trio", "dualio.redis.Redis.get on trio (the anyio transport), 1 in flight", "redis-raw",
           "trio_get", (1,), module=MODULE),
    Figure("redis-raw", "a blocking socket: send GET, recv, read the bulk string", None, "raw_get",
           module=MODULE),
    Figure("trio-floor", "trio: send, wait_readable in a CancelScope with a deadline, recv", "redis-raw",
           "trio_floor_get", ("scope",), module=MODULE),
    Figure("trio-floor-unbounded", "trio: send, wait_readable with no scope (no timeout), recv", "redis-raw",
           "trio_floor_get", ("none",), module=MODULE),
    Figure("trio-floor-reader", "trio: send, park; a reader task (one scope) reads and reschedules",
           "redis-raw", "trio_floor_get", ("reader",), module=MODULE),
)}
"""dualio's figures and their floor."""
PEERS = {figure.name: figure for figure in (
    Figure("redis-py-sync", "redis.Redis(protocol=3).get, hiredis parser", "redis-raw", "redis_py_sync_get",
           ours=False, module=MODULE),
    Figure("redis-py-asyncio", "redis.asyncio.Redis(protocol=3).get, 1 in flight", "redis-raw",
           "redis_py_asyncio_get", (1,), ours=False, module=MODULE),
    Figure("redis-py-asyncio-100", "redis.asyncio.Redis(protocol=3).get, 100 in flight (a connection each)",
           "redis-raw", "redis_py_asyncio_get", (100,), ours=False, module=MODULE),
    Figure("redis-py-sync-pipeline", "redis.Redis(protocol=3).pipeline(transaction=False) of 100 GETs, "
           "per GET", "redis-raw", "redis_py_sync_pipeline_get", ours=False, module=MODULE),
    Figure("coredis", "coredis.Redis.get (RESP3), 1 in flight", "redis-raw", "coredis_get", (1,),
           ours=False, module=MODULE),
    Figure("glide-sync", "glide_sync.GlideClient.get, with its Rust I/O threads", "redis-raw",
           "glide_sync_get", ours=False, module=MODULE),
    Figure("glide-async", "glide.GlideClient.get on asyncio, with its Rust I/O threads", "redis-raw",
           "glide_async_get", ours=False, module=MODULE),
)}
"""What dualio is compared with: reported beside its figures, never judged."""
NEEDS = {
    "redis-py-sync": ("redis", "hiredis"),
    "redis-py-asyncio": ("redis", "hiredis"),
    "redis-py-asyncio-100": ("redis", "hiredis"),
    "redis-py-sync-pipeline": ("redis", "hiredis"),
    "coredis": ("coredis",),
    "glide-sync": ("glide_sync",),
    "glide-async": ("glide",),
}
"""The packages (import names) each peer's figure needs."""
FIGURES = {**DUALIO, **PEERS}
GOALS = {"redis-sync": 60_000, "redis-native": 95_000, "redis-native-100": 60_000,
         "redis-sync-pipeline": 20_000, "redis-native-pipeline": 20_000}
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


PIPELINE = 100
"""GETs per pipeline in the ``-pipeline`` figures."""


def sync_cached_get(calls: int, clock: Clock) -> float:
    """``dualio_sync.redis.Redis.get`` with a client-side cache, every GET but the first a hit."""
    with BlockingRedis(*_address(), cache=ClientCache()) as redis:
        get = redis.get
        _check(get(KEY))
        started = clock()
        for _ in range(calls):
            _check(get(KEY))
        return (clock() - started) / calls


async def native_cached_get(calls: int, clock: Clock) -> float:
    """``dualio.redis.Redis.get`` on asyncio with a client-side cache: hits."""
    async with AsyncRedis(*_address(), cache=ClientCache()) as redis:
        get = redis.get
        _check(await get(KEY))
        started = clock()
        for _ in range(calls):
            _check(await get(KEY))
        return (clock() - started) / calls


def sync_pipeline_get(calls: int, clock: Clock) -> float:
    """``dualio_sync.redis.Redis.pipeline`` of :data:`PIPELINE` GETs, per GET."""
    gets = [("GET", KEY)] * PIPELINE
    with BlockingRedis(*_address()) as redis:
        pipeline = redis.pipeline
        _check(pipeline(*gets)[0])
        started = clock()
        for _ in range(calls // PIPELINE):
            _check(pipeline(*gets)[-1])
        return (clock() - started) / calls


async def native_pipeline_get(calls: int, clock: Clock) -> float:
    """``dualio.redis.Redis.pipeline`` of :data:`PIPELINE` GETs on asyncio, per GET."""
    gets = [("GET", KEY)] * PIPELINE
    async with AsyncRedis(*_address()) as redis:
        pipeline = redis.pipeline
        _check((await pipeline(*gets))[0])
        started = clock()
        for _ in range(calls // PIPELINE):
            _check((await pipeline(*gets))[-1])
        return (clock() - started) / calls


def redis_py_sync_pipeline_get(calls: int, clock: Clock) -> float:
    """``redis.Redis(protocol=3).pipeline(transaction=False)`` of :data:`PIPELINE` GETs, per GET."""
    import redis

    with redis.Redis(*_address(), protocol=3) as client:
        def run() -> list[Any]:
            pipe = client.pipeline(transaction=False)
            for _ in range(PIPELINE):
                pipe.get(KEY)
            return cast("list[Any]", pipe.execute())

        _check(run()[0])
        started = clock()
        for _ in range(calls // PIPELINE):
            _check(run()[-1])
        return (clock() - started) / calls


def trio_get(calls: int, in_flight: int, clock: Clock) -> float:
    """``dualio.redis.Redis.get`` on trio, ``in_flight`` at a time."""
    from dualio.lab.instructions.call_loops import _per_call_trio, _seeded_trio

    trio = _seeded_trio()

    async def main() -> float:
        async with AsyncRedis(*_address()) as redis:
            get = redis.get
            return await _per_call_trio(lambda: get(KEY), calls, in_flight, clock)

    return float(trio.run(main))


def trio_floor_get(calls: int, how: str, clock: Clock) -> float:
    """What trio itself costs per GET on a socket (see ``trio-floor`` above)."""
    from dualio.lab.instructions.call_loops import _seeded_trio

    trio = _seeded_trio()
    import outcome

    async def main() -> float:
        sock = trio.socket.socket()
        await sock.connect(_address())
        raw = sock._sock
        waiting: list[Any] = []

        async def reader() -> None:
            with trio.CancelScope(deadline=trio.current_time() + 3600):
                while True:
                    await trio.lowlevel.wait_readable(raw)
                    trio.lowlevel.reschedule(waiting.pop(0), outcome.Value(raw.recv(65536)))

        def abort(_: object) -> Any:
            return trio.lowlevel.Abort.FAILED

        async def get() -> bytes:
            raw.send(GET_COMMAND)
            if how == "reader":
                waiting.append(trio.lowlevel.current_task())
                return cast(bytes, await trio.lowlevel.wait_task_rescheduled(abort))
            if how == "scope":
                with trio.CancelScope(deadline=trio.current_time() + 30):
                    await trio.lowlevel.wait_readable(raw)
            else:
                await trio.lowlevel.wait_readable(raw)
            return cast(bytes, raw.recv(65536))

        async with trio.open_nursery() as tasks:
            if how == "reader":
                tasks.start_soon(reader)
                await trio.sleep(0)
            _check(read_bulk(await get())[0])
            started = clock()
            for _ in range(calls):
                _check(read_bulk(await get())[0])
            per_call = (clock() - started) / calls
            tasks.cancel_scope.cancel()
        sock.close()
        return per_call

    return float(trio.run(main))


# -- the peers' loops (imported only when their figure runs) --------------------------------

def _blocking_gets(get: Callable[[str], bytes | None], calls: int, clock: Clock) -> float:
    _check(get(KEY))  # connected, and the first GET answered, before the first marker
    started = clock()
    for _ in range(calls):
        _check(get(KEY))
    return (clock() - started) / calls


async def _gets(
    get: Callable[[str], Awaitable[bytes | None]], calls: int, in_flight: int, clock: Clock
) -> float:
    for answer in await asyncio.gather(*(get(KEY) for _ in range(in_flight))):
        _check(answer)  # connected (each connection a pool opens), before the first marker
    return await _per_call(lambda: get(KEY), calls, in_flight, clock)


def redis_py_sync_get(calls: int, clock: Clock) -> float:
    """``redis.Redis.get``, RESP3, one at a time."""
    import redis

    with redis.Redis(*_address(), protocol=3) as client:
        return _blocking_gets(client.get, calls, clock)


async def redis_py_asyncio_get(calls: int, in_flight: int, clock: Clock) -> float:
    """``redis.asyncio.Redis.get``, RESP3, ``in_flight`` at a time."""
    import redis.asyncio

    host, port = _address()
    async with redis.asyncio.Redis(host=host, port=port, protocol=3) as client:
        get = cast("Callable[[str], Awaitable[bytes | None]]", client.get)  # bytes: no decode_responses
        return await _gets(get, calls, in_flight, clock)


async def coredis_get(calls: int, in_flight: int, clock: Clock) -> float:
    """``coredis.Redis.get``, ``in_flight`` at a time."""
    import coredis

    client = coredis.Redis(*_address())
    async with client:
        return await _gets(client.get, calls, in_flight, clock)


def glide_sync_get(calls: int, clock: Clock) -> float:
    """``glide_sync.GlideClient.get``, one at a time."""
    from glide_sync import GlideClient, GlideClientConfiguration, NodeAddress

    client = GlideClient.create(GlideClientConfiguration([NodeAddress(*_address())]))
    try:
        return _blocking_gets(client.get, calls, clock)
    finally:
        client.close()


async def glide_async_get(calls: int, clock: Clock) -> float:
    """``glide.GlideClient.get`` on asyncio, one at a time."""
    from glide import GlideClient, GlideClientConfiguration, NodeAddress

    client = await GlideClient.create(GlideClientConfiguration([NodeAddress(*_address())]))
    try:
        return await _gets(client.get, calls, 1, clock)
    finally:
        await client.close()


# -- which figures ------------------------------------------------------------------------

def missing(name: str) -> str | None:
    """Why a figure cannot run on this Python (a package it needs is not installed), or None."""
    for package in NEEDS.get(name, ()):
        if importlib.util.find_spec(package) is None:
            return f"{package} is not installed"
    return None


def choose(names: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The figures to count (``names``, all by default, each with its floor), in the order
    of FIGURES, and those left out with the reason."""
    named = list(FIGURES) if names is None else names
    wanted = set(named) | {floor for name in named if (floor := FIGURES[name].floor)}
    chosen: list[str] = []
    skipped: dict[str, str] = {}
    for name in FIGURES:
        if name in wanted:
            reason = missing(name)
            if reason is None:
                chosen.append(name)
            else:
                skipped[name] = reason
    return chosen, skipped


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

def measure(calls: int, executable: str | None = None, names: list[str] | None = None) -> dict[str, Count]:
    """Instructions per GET of each figure named (all by default), against a redis-server
    started here: dualio's figures in one callgrind process, the peers' in another, both
    at once. The estimates' spread is reported, not checked."""
    valgrind()
    _compile_first()
    names = list(FIGURES) if names is None else names
    groups = [group for group in ([name for name in names if name in DUALIO],
                                  [name for name in names if name in PEERS]) if group]
    counts: dict[str, Count] = {}
    with running_server(executable) as server, \
            tempfile.TemporaryDirectory(prefix="dualio-callgrind-") as scratch:
        env = {ADDRESS: f"{server.host}:{server.port}"}
        for name, loops in _loops(Path(scratch), groups, calls, env, MODULE):
            totals = [(n, _dump_total(dump)) for n, dump in loops]
            counts[name] = count(name, totals, check=False)
    return {name: counts[name] for name in FIGURES if name in counts}


def report(counts: dict[str, Count], skipped: dict[str, str] | None = None) -> str:
    """One table, dualio's figures first and the peers' after; the peers left out and why;
    dualio's figures beside their goals."""
    ordered = {name: counts[name] for name in FIGURES if name in counts}
    lines = [table(ordered, FIGURES)]
    if any(name in PEERS for name in ordered) or skipped:
        lines.append(f"peers' figures ({', '.join(PEERS)}) are reported beside dualio's, not gated")
    for name, reason in (skipped or {}).items():
        lines.append(f"{name}: not counted, {reason}")
    if any(name in counts for name in GOALS):
        lines += ["", f"{'goal':<20} {'instr/GET':>11} {'goal':>10}"]
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
    parser.add_argument("--figures", metavar="NAMES",
                        help=f"comma-separated, each counted with its floor (default: all): "
                             f"{', '.join(FIGURES)}")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--redis-server", metavar="PATH", help="the server to start (default: on the PATH)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.calls < 100 or args.calls % 100:
        parser.error("--calls must be a multiple of 100 (the 100-in-flight figure)")
    if args.child:
        child(args.child.split(","), args.calls, FIGURES)
        return 0
    names = args.figures.split(",") if args.figures else None
    unknown = [name for name in names or () if name not in FIGURES]
    if unknown:
        parser.error(f"unknown figures: {', '.join(unknown)} (known: {', '.join(FIGURES)})")
    chosen, skipped = choose(names)
    try:
        counts = measure(args.calls, args.redis_server, chosen)
    except (ValgrindMissing, RedisServerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"instructions per GET of a 16-byte value against redis-server on 127.0.0.1 (callgrind, "
          f"the client process only; (2N − N) / N with N = {args.calls}, twice; "
          f"{sys.implementation.name} {sys.version.split()[0]})")
    print(report(counts, skipped))
    if args.json:
        args.json.write_text(json.dumps({name: c.per_call for name, c in counts.items()}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
