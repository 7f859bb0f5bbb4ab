"""Chaos: every face of one client at once under a network that misbehaves, every reply
checked against its own call.

    python -m dualio.lab.chaos --seconds 60 --wire redis --face native-trio --seed 7

One run is one face on one wire (Redis on a redis-server the run starts, or protocol v1
on the reference server), behind a fault proxy whose weather changes every few hundred
milliseconds: latency, slicing, a connection cut after some bytes, a reset, a stall that
drops, half-open (the server vanishes without a word), and, on Redis, a server restart.
On one client at once: workers calling with a token of their own (some with a short
timeout, some cancelled from outside at a random moment; on Redis a fifth of the calls are
DBSIZE, whose requests are all one bytes object), and on Redis a subscriber that
comes and goes on the same client while a publisher publishes. The last quarter of the
run (``FAIR`` seconds after ``--seconds`` of faults) is fair weather: each subscriber
must then hear a message (a subscription that stopped without an error is *silent*).

Counted, and each must be 0: replies that reached the wrong caller (``wrong``), silent
subscriptions (``silent``), and exceptions that escaped to a loop's, trio's or a
thread's unhandled-exception handler, or a ``ResourceWarning`` such as an unclosed
socket (``escaped``). The seed fixes every random choice of the run (not the network's
timing): a failing run prints it.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import random
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio

from dualio.lab.common.fault_proxy import FaultProxy, Toxic

WIRES = ("redis", "v1")
ASYNC_FACES: dict[str, tuple[str, dict[str, Any]]] = {
    "native-asyncio": ("asyncio", {"transport": "native"}),
    "anyio-asyncio": ("asyncio", {"transport": "anyio"}),
    "native-trio": ("trio", {"transport": "native"}),
    "emulated-pool": ("asyncio", {"transport": "emulated", "emulation": "pool"}),
    "emulated-thread": ("asyncio", {"transport": "emulated", "emulation": "thread"}),
    "emulated-callback": ("asyncio", {"transport": "emulated", "emulation": "callback"}),
}
"""The async faces: the loop they run on, and the client's transport arguments."""
SYNC_FACES: dict[str, dict[str, Any]] = {
    "blocking": {"transport": "blocking"},
    "portal": {"transport": "portal"},
}
FACES = (*ASYNC_FACES, *SYNC_FACES)
WORKERS = 8
KEEPALIVE = 0.5
"""The clients' keepalive: a server that vanished is found within about three of these."""
TIMEOUT = 3.0
"""The clients' call timeout (a subscription has none)."""
FAIR = 4.0
"""Seconds of fair weather after the faults: a subscriber must hear a message in them
(a vanished server is found within three keepalives, and the subscription renewed)."""
WEATHER = (
    Toxic("latency", 0.01), Toxic("slicer", 7), Toxic("limit_data", 5000), Toxic("limit_data", 9800),
    Toxic("reset_peer"), Toxic("timeout", 0.3), Toxic("half_open"), Toxic("blackhole"),
    Toxic("bandwidth", 20_000), Toxic("slow_close", 0.2),
)
RESTART = "restart"
COUNT = b"#"
"""A worker's token for DBSIZE (an int is its answer): every request of a command without
arguments is one bytes object, which must not make one caller's request another's."""
ESCAPE_LOGGERS = ("trio.async_generator_errors", "asyncio")
"""Where trio (an async generator's finaliser) and asyncio report what nobody caught."""


@dataclass
class Tally:
    """What one run counted."""

    face: str
    wire: str
    seed: int
    calls: int = 0
    ok: int = 0
    wrong: int = 0
    silent: int = 0
    escaped: int = 0
    messages: int = 0
    subscriptions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def wrong_answer(self, what: str) -> None:
        self.wrong += 1
        if len(self.examples) < 10:
            self.examples.append(what)

    def escape(self, what: str) -> None:
        self.escaped += 1
        if len(self.examples) < 10:
            self.examples.append(f"escaped: {what}")

    @property
    def failed(self) -> bool:
        return bool(self.wrong or self.silent or self.escaped)

    def line(self) -> str:
        errors = ", ".join(f"{name} {count}" for name, count in self.errors.most_common(4))
        return (f"{self.wire:5} {self.face:17} seed {self.seed}: calls {self.calls}, ok {self.ok}, "
                f"wrong {self.wrong}, silent {self.silent}, escaped {self.escaped}, "
                f"subscriptions {self.subscriptions}, messages {self.messages}; errors: {errors or 'none'}")


# -- the servers and the weather ----------------------------------------------------------

class _Server:
    """The wire's server on a fixed port, which the weather may restart."""

    def __init__(self, wire: str) -> None:
        self.wire = wire
        self._redis: Any = None
        self._v1: Any = None
        # the faults make the server log every cut connection: the run's counts are its report
        self._log = logging.getLogger("dualio.server")
        self._level = self._log.level
        self._log.setLevel(logging.CRITICAL)
        self.address = self._start(None)

    def _start(self, port: int | None) -> tuple[str, int]:
        if self.wire == "redis":
            from dualio.lab.common.redis_server import start_redis

            self._redis = start_redis(port=port)
            return self._redis.address  # type: ignore[no-any-return]
        from dualio.server.config import ServerConfig
        from dualio.server.embedded import EmbeddedServer

        self._v1 = EmbeddedServer(ServerConfig(port=port or 0)).start()
        return self._v1.host, self._v1.port

    def restart(self) -> None:
        if self.wire != "redis":
            return  # the reference server's port cannot be taken again at once: resets stand in
        self.stop()
        self._start(self.address[1])

    def stop(self) -> None:
        self._log.setLevel(self._level)
        if self._redis is not None:
            self._redis.stop()
            self._redis = None
        if self._v1 is not None:
            self._v1.stop()
            self._v1 = None


def _weather(
    proxy: FaultProxy, server: _Server, rng: random.Random, fair_at: float, stop: threading.Event
) -> None:
    """Change the toxic every 0.1-0.6 s until ``fair_at``, then clear it."""
    while not stop.is_set() and time.monotonic() < fair_at:
        choice: Toxic | str | None = rng.choice((*WEATHER, RESTART, None, None))
        if isinstance(choice, Toxic):
            proxy.set(choice)
        else:
            proxy.clear()
            if choice == RESTART:
                with contextlib.suppress(Exception):
                    server.restart()
        stop.wait(rng.uniform(0.1, 0.6))
    proxy.clear()


# -- what escapes -----------------------------------------------------------------------

@contextlib.contextmanager
def _watching(tally: Tally) -> Iterator[None]:
    """Count what reaches an unhandled-exception handler: ``sys.unraisablehook`` (an
    async generator's finaliser, a ``__del__``, a ResourceWarning made an error) and
    ``threading.excepthook``, the loggers trio and asyncio report such errors to; the
    asyncio loop's handler is set where the loop starts."""
    unraisable, excepthook = sys.unraisablehook, threading.excepthook

    def on_unraisable(info: Any) -> None:
        error = info.exc_value
        tally.escape(f"{type(error).__name__}: {error} ({info.err_msg or ''} {info.object!r:.80})")

    def on_thread(info: Any) -> None:
        where = info.thread.name if info.thread else "?"
        tally.escape(f"in thread {where}: {info.exc_type.__name__}: {info.exc_value}")

    class Logged(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            tally.escape(f"{record.name}: {record.getMessage():.120}")

    handler = Logged(logging.ERROR)
    loggers = [logging.getLogger(name) for name in ESCAPE_LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    sys.unraisablehook, threading.excepthook = on_unraisable, on_thread
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            yield
            import gc

            gc.collect()
    finally:
        sys.unraisablehook, threading.excepthook = unraisable, excepthook
        for logger in loggers:
            logger.removeHandler(handler)


# -- the async faces ----------------------------------------------------------------------

async def _async_run(tally: Tally, address: tuple[str, int], options: dict[str, Any], until: float,
                     fair_at: float, rng: random.Random) -> None:
    if _on_asyncio():
        import asyncio

        def on_loop_error(loop: Any, context: dict[str, Any]) -> None:
            tally.escape(f"{context.get('message')}: {context.get('exception')!r}")

        asyncio.get_running_loop().set_exception_handler(on_loop_error)
    client: Any
    if tally.wire == "redis":
        from dualio.redis import Redis

        client = Redis(*address, timeout=TIMEOUT, keepalive=KEEPALIVE, lazy=True, **options)
    else:
        from dualio import AsyncClient

        client = AsyncClient(*address, timeout=TIMEOUT, keepalive=KEEPALIVE, lazy=True, **options)
    heard = {"last": 0.0}
    async with client:
        async def worker(number: int) -> None:
            call = 0
            while time.monotonic() < until:
                call += 1
                counting = tally.wire == "redis" and rng.random() < 0.2
                token = COUNT if counting else f"w{number}.{call}".encode()
                roll = rng.random()
                tally.calls += 1
                try:
                    if roll < 0.15:
                        got = await _echo(client, tally.wire, token, rng.uniform(0.001, 0.02))
                    elif roll < 0.30:
                        with anyio.move_on_after(rng.uniform(0.001, 0.05)):
                            got = await _echo(client, tally.wire, token, None)
                            _check(tally, token, got)
                        continue
                    elif roll < 0.35 and tally.wire == "v1":
                        count = rng.randint(1, 4)
                        words = [word async for word in client.words(count)]
                        if len(words) != count or not all(isinstance(word, str) for word in words):
                            tally.wrong_answer(f"words({count}) gave {words!r:.80}")
                        else:
                            tally.ok += 1
                        continue
                    else:
                        got = await _echo(client, tally.wire, token, None)
                    _check(tally, token, got)
                except Exception as exc:
                    tally.errors[type(exc).__name__] += 1
                    await anyio.sleep(0.002)

        async def subscriber() -> None:
            while time.monotonic() < until:
                try:
                    now = time.monotonic()
                    with anyio.move_on_after(rng.uniform(0.05, 1.0) if now < fair_at else until - now):
                        async with client.subscribe("chaos") as messages:
                            tally.subscriptions += 1
                            leave_after = rng.randint(1, 8) if time.monotonic() < fair_at else 10**9
                            async for message in messages:
                                if message.channel != b"chaos" or not message.data.startswith(b"p."):
                                    tally.wrong_answer(f"subscription got {message!r:.80}")
                                tally.messages += 1
                                heard["last"] = time.monotonic()
                                leave_after -= 1
                                if leave_after <= 0:
                                    break
                except Exception as exc:
                    tally.errors[f"subscribe: {type(exc).__name__}"] += 1
                    await anyio.sleep(0.01)

        async def publisher() -> None:
            number = 0
            while time.monotonic() < until:
                number += 1
                try:
                    got = await client.publish("chaos", b"p.%d" % number)
                    if not isinstance(got, int):
                        tally.wrong_answer(f"PUBLISH answered {got!r:.80}")
                except Exception as exc:
                    tally.errors[f"publish: {type(exc).__name__}"] += 1
                await anyio.sleep(0.005)

        async with anyio.create_task_group() as tasks:
            for number in range(WORKERS):
                tasks.start_soon(worker, number)
            if tally.wire == "redis":
                tasks.start_soon(subscriber)
                tasks.start_soon(publisher)
    if tally.wire == "redis" and heard["last"] < fair_at:
        tally.silent += 1  # nothing heard once the weather was fair


def _on_asyncio() -> bool:
    import sniffio

    return sniffio.current_async_library() == "asyncio"


async def _echo(client: Any, wire: str, token: bytes, timeout: float | None) -> Any:
    extra = {} if timeout is None else {"timeout": timeout}
    if wire == "redis":
        if token == COUNT:
            return await client.execute("DBSIZE", **extra)
        return await client.execute("ECHO", token, **extra)
    return await client.echo(token, **extra)


def _check(tally: Tally, token: bytes, got: Any) -> None:
    if got == token or (token == COUNT and type(got) is int):
        tally.ok += 1
    else:
        tally.wrong_answer(f"{token!r} got {got!r:.80}")


# -- the blocking faces -------------------------------------------------------------------

def _sync_run(tally: Tally, address: tuple[str, int], options: dict[str, Any], until: float,
              fair_at: float, rng: random.Random) -> None:
    client: Any
    if tally.wire == "redis":
        from dualio_sync.redis import Redis

        client = Redis(*address, timeout=TIMEOUT, keepalive=KEEPALIVE, lazy=True, **options)
    else:
        from dualio_sync import Client

        client = Client(*address, timeout=TIMEOUT, keepalive=KEEPALIVE, lazy=True, **options)
    lock = threading.Lock()
    heard = {"last": 0.0}

    def choose() -> float:
        with lock:
            return rng.random()

    def worker(number: int) -> None:
        call = 0
        while time.monotonic() < until:
            call += 1
            token = COUNT if tally.wire == "redis" and choose() < 0.2 else f"w{number}.{call}".encode()
            roll = choose()
            with lock:
                tally.calls += 1
            try:
                timeout = rng.uniform(0.001, 0.03) if roll < 0.3 else TIMEOUT
                if tally.wire == "redis":
                    command = ("DBSIZE",) if token == COUNT else ("ECHO", token)
                    got = client.execute(*command, timeout=timeout)
                elif roll > 0.95:
                    count = 1 + int(roll * 100) % 4
                    words = list(client.words(count))
                    with lock:
                        if len(words) != count:
                            tally.wrong_answer(f"words({count}) gave {words!r:.80}")
                        else:
                            tally.ok += 1
                    continue
                else:
                    got = client.echo(token, timeout=timeout)
                with lock:
                    _check(tally, token, got)
            except Exception as exc:
                with lock:
                    tally.errors[type(exc).__name__] += 1
                time.sleep(0.002)

    def subscriber() -> None:
        while time.monotonic() < until:
            try:
                with client.subscribe("chaos") as messages:
                    with lock:
                        tally.subscriptions += 1
                    leave_after = 1 + int(choose() * 8) if time.monotonic() < fair_at else 10**9
                    for message in messages:
                        with lock:
                            if message.channel != b"chaos" or not message.data.startswith(b"p."):
                                tally.wrong_answer(f"subscription got {message!r:.80}")
                            tally.messages += 1
                        heard["last"] = time.monotonic()
                        leave_after -= 1
                        if leave_after <= 0 or time.monotonic() >= until:
                            break
            except Exception as exc:
                with lock:
                    tally.errors[f"subscribe: {type(exc).__name__}"] += 1
                time.sleep(0.01)

    def publisher() -> None:
        number = 0
        while time.monotonic() < until + 0.5:
            number += 1
            try:
                got = client.publish("chaos", b"p.%d" % number)
                if not isinstance(got, int):
                    with lock:
                        tally.wrong_answer(f"PUBLISH answered {got!r:.80}")
            except Exception as exc:
                with lock:
                    tally.errors[f"publish: {type(exc).__name__}"] += 1
            time.sleep(0.005)

    threads = [threading.Thread(target=worker, args=(n,), name=f"chaos-worker-{n}") for n in range(WORKERS)]
    listening: threading.Thread | None = None
    if tally.wire == "redis":
        listening = threading.Thread(target=subscriber, name="chaos-subscriber", daemon=True)
        threads += [threading.Thread(target=publisher, name="chaos-publisher"), listening]
    with client:
        for thread in threads:
            thread.start()
        for thread in threads:
            if thread is not listening:
                thread.join()
        if listening is not None:
            listening.join(1.0)
            if heard["last"] < fair_at:
                tally.silent += 1  # nothing heard once the weather was fair
    if listening is not None:
        listening.join(5.0)


# -- a run --------------------------------------------------------------------------------

def run(wire: str, face: str, seconds: float, seed: int) -> Tally:
    """One face on one wire for ``seconds`` under changing weather; what it counted."""
    if wire not in WIRES or face not in FACES:
        raise ValueError(f"unknown wire {wire!r} or face {face!r}: wires {WIRES}, faces {FACES}")
    rng = random.Random(seed)
    tally = Tally(face, wire, seed)
    server = _Server(wire)
    stop = threading.Event()
    started = time.monotonic()
    fair_at = started + seconds
    until = fair_at + FAIR
    try:
        with FaultProxy(server.address) as proxy, _watching(tally):
            sky = random.Random(rng.random())
            weather = threading.Thread(
                target=_weather, args=(proxy, server, sky, fair_at, stop), name="chaos-weather"
            )
            weather.start()
            try:
                if face in ASYNC_FACES:
                    backend, options = ASYNC_FACES[face]
                    anyio.run(_async_run, tally, proxy.address, options, until, fair_at, rng, backend=backend)
                else:
                    _sync_run(tally, proxy.address, SYNC_FACES[face], until, fair_at, rng)
            finally:
                stop.set()
                weather.join()
    finally:
        server.stop()
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dualio.lab.chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0,
                        help=f"of faults per face and wire, then {FAIR:g} s of fair weather (default 10)")
    parser.add_argument("--wire", choices=WIRES, action="append", help="default: both")
    parser.add_argument("--face", choices=FACES, action="append", help="default: every face")
    parser.add_argument("--seed", type=int, default=None, help="default: a new one, printed")
    args = parser.parse_args(argv)
    seed = random.randrange(1 << 31) if args.seed is None else args.seed
    failed = 0
    for wire in args.wire or WIRES:
        for face in args.face or FACES:
            tally = run(wire, face, args.seconds, seed)
            print(tally.line(), flush=True)
            for example in tally.examples:
                print(f"    {example}", flush=True)
            failed += tally.failed
    print(f"seed {seed}: {failed} runs failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
