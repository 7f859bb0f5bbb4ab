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

import compileall
import importlib.util
import os
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dualio.lab.instructions.call_loops import Clock, _check, _per_call
from dualio.lab.instructions.fake_peers import PAYLOAD
from dualio.lab.instructions.real_redis import _blocking_gets
from dualio.testing import Figure, ServerCommand, ServerProcess, figures_main

MODULE = "dualio.lab.instructions.real_memcached"
ADDRESS = "DUALIO_LAB_MEMCACHED"
KEY = "key"
ROOT = Path(__file__).resolve().parents[3]
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
        return _blocking_gets(client.get, calls, clock)


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

MEMCACHED = ServerCommand(
    lambda port: ["memcached", "-u", "nobody", "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-m", "64"]
)
"""memcached on a port of 127.0.0.1, without UDP, with 64 MiB for items."""


@contextmanager
def running_memcached() -> Iterator[dict[str, str]]:
    """A memcached on a free port (the kit's :class:`ServerProcess`), its key set to the
    16-byte value; stopped at the end. Gives the measured process's environment."""
    if shutil.which("memcached") is None:
        raise SystemExit("error: memcached is not installed")
    server = ServerProcess(MEMCACHED)
    try:
        with socket.create_connection(server.address, timeout=5) as sock:
            sock.sendall(b"set %s 0 0 %d\r\n%s\r\n" % (KEY.encode(), len(PAYLOAD), PAYLOAD))
            if sock.recv(64) != b"STORED\r\n":
                raise SystemExit("error: memcached did not store the key")
        compileall.compile_dir(ROOT / "examples", quiet=2)
        yield {ADDRESS: f"{server.address[0]}:{server.address[1]}", "PYTHONPATH": str(ROOT)}
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    missing = [name for name, package in NEEDS.items() if importlib.util.find_spec(package) is None]
    for name in missing:
        print(f"{name}: not counted, {NEEDS[name]} is not installed")
    figures = [figure for name, figure in FIGURES.items() if name not in missing]
    return figures_main(MODULE, figures, running_memcached, argv, GOALS)


if __name__ == "__main__":
    raise SystemExit(main())
