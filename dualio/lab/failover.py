"""Failover: a Redis primary killed under calls in flight, on a Redis Cluster and through
Sentinel, and a cluster's slots moved under them (``reshard``), for dualio's faces beside
redis-py's and valkey-glide's clients.

    python -m dualio.lab.failover                    # every client, both set-ups, a table
    python -m dualio.lab.failover --target cluster --clients dualio-blocking,redis-py-sync
    python -m dualio.lab.failover --chaos            # dualio's faces, calls given up at random

Each run has a set-up of its own (:mod:`dualio.lab.common.redis_sets`): ``KEYS`` keys are
written with known values; ``--inflight`` workers (threads, or tasks, sharing one client)
each GET or SET (the same value again: a write safe to repeat) a random key, every GET's
value checked; after ``STEADY`` seconds of that (GETs and SETs per second are counted
then), the primary that serves the first key is SIGKILLed, and the run goes on until
``RECOVER`` seconds after its replica is promoted (seen answering as a primary). With
``reshard``, nothing is killed: ``RESHARDED`` slots move, keys and all, from that primary
to another while the calls go on (``redis-cli --cluster reshard``). With
``--chaos`` a tenth of the calls are given up at a random moment (a short timeout, or a
cancel from outside), which must not hand any call another's reply.

Counted per run, by the lab's own connections (opened before the kill, so not counted):

- ``calls``, and ``wrong``: a GET whose value is not its key's (must be 0); ``slowest``:
  the longest a call took, seconds;
- ``errors``: exceptions that reached the caller, by type (``given_up``, with ``--chaos``:
  the calls the run gave up itself);
- ``recovered``: seconds from the promotion until every call succeeds again: the latest of
  the last error, the answer of the last call made before the promotion (a call waiting
  out the failover), and the first answer to a call on the failed primary's keys made
  after it;
- ``connections``: connections the surviving servers received after the kill
  (``total_connections_received``); through Sentinel, the sentinels' own reconnections to
  the promoted replica are counted too: the run of client ``none`` (no calls) counts them
  alone;
- ``map reads``: CLUSTER SHARDS and CLUSTER SLOTS the surviving nodes answered after the
  kill (a sentinel keeps no count of the commands it answers: not counted through Sentinel).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, cast

import anyio

from dualio import DualioTimeout, RetriesExhausted
from dualio.lab.bench.redis_clients import glide_quiet
from dualio.lab.common.redis_server import RedisServer
from dualio.lab.common.redis_sets import SERVICE, Cluster, SentinelSet, started_cluster, started_sentinel_set
from dualio_transports.redis_protocol.resp import ErrorReply, ReplyReader, encode_command, parse
from dualio_transports.redis_protocol.slots import key_slot

KEYS = 1000
STEADY = 2.0
RECOVER = 3.0
PROMOTION_WITHIN = 30.0
TIMEOUT = 5.0
"""Every client's call timeout, seconds."""
INFLIGHT = 100
GIVE_UP = 0.1
"""With ``--chaos``: the share of calls given up at a random moment."""
TARGETS = ("cluster", "sentinel", "reshard")
CLUSTERED = ("cluster", "reshard")
RESHARDED = 1000
"""Slots ``reshard`` moves (``redis-cli --cluster reshard``), their keys with them."""


WROTE = object()
"""What a run's SET answered, for :meth:`Tally.answered` (its reply is not checked)."""


def key_of(n: int) -> str:
    return f"fo:{n}"


def value_of(key: str) -> bytes:
    return f"v:{key}".encode()


# -- the lab's own view of the servers: one RESP2 connection each ------------------------

class Probe:
    """A connection of the lab's own to one server, opened before anything is counted; opened
    again (and the reopening counted, so the run's figures leave it out) when the server
    closes it, as sentinels close a promoted replica's clients. It speaks RESP2 with
    dualio's own encoder and reader (no client of its own to count)."""

    def __init__(self, server: RedisServer) -> None:
        self.server = server
        self.reopened = 0
        self._open()

    def _open(self) -> None:
        self.sock = socket.create_connection(self.server.address, timeout=5)
        self._reader = ReplyReader()
        self._replies: list[tuple[int, bytes]] = []

    def ask(self, *words: str) -> Any:
        """A command's reply, text as ``str`` (an error reply raised as RuntimeError)."""
        request = encode_command(*words)
        try:
            self.sock.sendall(request)
            reply = self._reply()
        except (OSError, EOFError):
            self.close()
            self.reopened += 1
            self._open()
            self.sock.sendall(request)
            reply = self._reply()
        if isinstance(reply, ErrorReply):
            raise RuntimeError(str(reply))
        return _texts(reply)

    def _reply(self) -> Any:
        while not self._replies:
            data = self.sock.recv(1 << 16)
            if not data:
                raise EOFError("the server closed the lab's connection")
            self._replies += self._reader.feed(data)
        return parse(self._replies.pop(0)[1])

    def info(self, section: str) -> dict[str, str]:
        text = self.ask("INFO", section)
        lines = [line for line in text.splitlines() if ":" in line and not line.startswith("#")]
        return dict(line.split(":", 1) for line in lines)

    def calls_of(self, *commands: str) -> int:
        stats = self.info("commandstats")
        total = 0
        for command in commands:
            entry = stats.get(f"cmdstat_{command}", "")
            total += int(dict(part.split("=") for part in entry.split(","))["calls"]) if entry else 0
        return total

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def _texts(value: Any) -> Any:
    """A reply with its bulk strings as text."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, list):
        return [_texts(item) for item in value]
    return value


# -- what a run counts ---------------------------------------------------------------------

@dataclass
class Tally:
    target: str
    client: str
    calls: int = 0
    steady_calls: int = 0
    wrong: int = 0
    given_up: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    last_error_at: float = 0.0
    first_after: float = 0.0  # the first call to the failed primary's keys answered after the promotion
    last_before: float = 0.0  # when the last call made before the promotion was answered
    killed_at: float = 0.0
    promoted_at: float = 0.0
    promotion: float = 0.0  # seconds from the kill to the promotion
    recovered: float | None = None
    connections: int = 0
    map_reads: int = 0
    skipped: str = ""
    steady_per_second: float = 0.0
    slowest: float = 0.0

    def answered(self, key: str, got: object, started: float, affected: set[str]) -> None:
        """A call on ``key`` answered ``got`` (WROTE for a SET)."""
        self.calls += 1
        self.slowest = max(self.slowest, time.monotonic() - started)
        if got is not WROTE and got != value_of(key) and got != value_of(key).decode():
            self.wrong += 1
        if self.promoted_at:
            if started < self.promoted_at:
                self.last_before = time.monotonic()
            elif key in affected and not self.first_after:
                self.first_after = time.monotonic()

    def failed(self, exc: BaseException) -> None:
        name = type(exc).__name__
        self.errors[name] += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(f"{name}: {exc}"[:200])
        self.last_error_at = time.monotonic()

    def summary(self) -> dict[str, Any]:
        facts = asdict(self)
        facts["errors"] = dict(self.errors)
        facts["error_count"] = sum(self.errors.values())
        facts["first_answer"] = self.first_after - self.promoted_at if self.first_after else None
        facts["last_waiting_answer"] = self.last_before - self.promoted_at if self.last_before else None
        for name in ("last_error_at", "first_after", "last_before", "killed_at", "promoted_at"):
            del facts[name]
        return facts


# -- the clients ---------------------------------------------------------------------------

Opener = Callable[[str, Any], Any]


class NoClient:
    """The run of no client: what the set-up itself does across the failover."""

    def close(self) -> None:
        pass


def open_sync(client: str, target: str, where: Any) -> Any:
    """A blocking client with ``get(key)`` and ``set(key, value)``, and ``close()``."""
    if client == "none":
        return NoClient()
    if client == "dualio-blocking":
        from dualio_sync.redis import Redis, RedisCluster

        if target in CLUSTERED:
            return RedisCluster(*where, timeout=TIMEOUT)
        return Redis(sentinels=where, service_name=SERVICE, timeout=TIMEOUT)
    if client == "redis-py-sync":
        import redis
        import redis.cluster
        import redis.sentinel

        if target in CLUSTERED:
            return redis.cluster.RedisCluster(*where, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
        sentinel: Any = cast(Any, redis.sentinel.Sentinel)(where, socket_timeout=TIMEOUT)
        return sentinel.master_for(SERVICE, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    if client == "glide-sync":
        glide_quiet()
        from glide_sync import GlideClusterClient, GlideClusterClientConfiguration, NodeAddress

        config = GlideClusterClientConfiguration([NodeAddress(*where)], request_timeout=int(TIMEOUT * 1000))
        return GlideClusterClient.create(config)
    raise ValueError(client)


async def open_async(client: str, target: str, where: Any) -> Any:
    """An async client with ``get``, ``set`` and ``aclose``/``close``, opened."""
    if client in ("dualio-asyncio", "dualio-trio"):
        from dualio.redis import Redis, RedisCluster

        if target in CLUSTERED:
            return await RedisCluster(*where, timeout=TIMEOUT).open()
        return await Redis(sentinels=where, service_name=SERVICE, timeout=TIMEOUT).open()
    if client == "redis-py-asyncio":
        import redis.asyncio
        import redis.asyncio.cluster
        import redis.asyncio.sentinel

        if target in CLUSTERED:
            return redis.asyncio.cluster.RedisCluster(host=where[0], port=where[1], socket_timeout=TIMEOUT,
                                                      socket_connect_timeout=TIMEOUT)
        sentinel: Any = cast(Any, redis.asyncio.sentinel.Sentinel)(where, socket_timeout=TIMEOUT)
        return sentinel.master_for(SERVICE, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    if client == "glide-async":
        glide_quiet()
        from glide import GlideClusterClient, GlideClusterClientConfiguration, NodeAddress

        config = GlideClusterClientConfiguration([NodeAddress(*where)], request_timeout=int(TIMEOUT * 1000))
        return await GlideClusterClient.create(config)
    raise ValueError(client)


SYNC_CLIENTS = ("none", "dualio-blocking", "redis-py-sync", "glide-sync")
ASYNC_CLIENTS = {"dualio-asyncio": "asyncio", "dualio-trio": "trio", "redis-py-asyncio": "asyncio",
                 "glide-async": "asyncio"}
CLIENTS = (*SYNC_CLIENTS, *ASYNC_CLIENTS)
DUALIO = ("dualio-blocking", "dualio-asyncio", "dualio-trio")
NO_SENTINEL = dict.fromkeys(("glide-sync", "glide-async"), "valkey-glide has no Sentinel support")


# -- one run --------------------------------------------------------------------------------

@dataclass
class SetUp:
    """What a run kills and watches: the primary, its replica, every server's probe."""

    where: Any  # what the clients are given: a seed address, or the sentinels' addresses
    victim: RedisServer
    replica: RedisServer
    probes: list[Probe]  # every server's but the victim's
    sentinel_probes: list[Probe]
    affected: set[str]  # the keys the victim serves

    def counts(self, target: str) -> tuple[int, int]:
        """Connections received (not the lab's own), and map reads, summed over the surviving servers."""
        connections = sum(int(p.info("stats")["total_connections_received"]) - p.reopened
                          for p in self.probes)
        if target in CLUSTERED:
            reads = sum(p.calls_of("cluster|shards", "cluster|slots") for p in self.probes)
        else:  # a sentinel's INFO has no commandstats
            reads = 0
            connections += sum(int(p.info("stats")["total_connections_received"]) - p.reopened
                               for p in self.sentinel_probes)
        return connections, reads


def _cluster_set_up(cluster: Cluster, everyone: bool = False) -> SetUp:
    """The set-up of a cluster run; ``everyone``: the victim is probed too (nothing is killed)."""
    first = key_slot(key_of(0).encode())
    victim = cluster.owner(first)
    ranges = []
    probe = Probe(victim)
    for start, end, primary, *_ in probe.ask("CLUSTER", "SLOTS"):
        if int(primary[1]) == victim.port:
            ranges.append((int(start), int(end)))
    probe.close()
    affected = {key_of(n) for n in range(KEYS)
                if any(a <= key_slot(key_of(n).encode()) <= b for a, b in ranges)}
    probes = [Probe(s) for s in cluster.servers if everyone or s is not victim]
    replica = next(p.server for p in probes if p.info("replication").get("master_port") == str(victim.port))
    return SetUp(cluster.seed, victim, replica, probes, [], affected)


def _sentinel_set_up(watched: SentinelSet) -> SetUp:
    probes = [Probe(watched.replica)]
    return SetUp(watched.addresses, watched.primary, watched.replica, probes,
                 [Probe(s) for s in watched.sentinels], {key_of(n) for n in range(KEYS)})


def _fill(set_up: SetUp, target: str) -> None:
    from dualio_sync.redis import Redis, RedisCluster

    client: Any = RedisCluster(*set_up.where, timeout=10) if target in CLUSTERED else Redis(
        sentinels=set_up.where, service_name=SERVICE, timeout=10)
    with client:
        client.pipeline(*(("SET", key_of(n), value_of(key_of(n))) for n in range(KEYS)))
    with Redis(*set_up.victim.address, timeout=10) as victim:
        victim.execute("WAIT", 1, 5000)  # the replica has every key before the kill


def _promoted(set_up: SetUp) -> None:
    """Wait until the replica answers as a primary."""
    replica = next(p for p in set_up.probes if p.server is set_up.replica)
    until = time.monotonic() + PROMOTION_WITHIN
    while time.monotonic() < until:
        if replica.info("replication").get("role") == "master":
            return
        time.sleep(0.01)
    raise RuntimeError("the replica was not promoted")


def _kill(set_up: SetUp, tally: Tally) -> None:
    """Kill the victim, wait for the promotion, count from the kill on."""
    tally.killed_at = time.monotonic()
    set_up.victim.process.kill()
    set_up.victim.process.wait()
    _promoted(set_up)


def _reshard(set_up: SetUp, tally: Tally) -> None:
    """Move RESHARDED slots from the victim to another primary, count from the start on."""
    victim = next(p for p in set_up.probes if p.server is set_up.victim)
    receiver = next(p for p in set_up.probes if p.server is not set_up.victim
                    and p.info("replication").get("role") == "master")
    source, destination = victim.ask("CLUSTER", "MYID"), receiver.ask("CLUSTER", "MYID")
    tally.killed_at = time.monotonic()
    subprocess.run(["redis-cli", "--cluster", "reshard", f"{victim.server.host}:{victim.server.port}",
                    "--cluster-from", source, "--cluster-to", destination, "--cluster-slots", str(RESHARDED),
                    "--cluster-yes"], check=True, capture_output=True, timeout=120)


def _event(set_up: SetUp, tally: Tally) -> None:
    """What the run does to the set-up under load (from ``killed_at`` until the promotion or
    the slots moved), then ``RECOVER`` seconds; the servers' counts taken around both."""
    before = set_up.counts(tally.target)
    (_reshard if tally.target == "reshard" else _kill)(set_up, tally)
    tally.promoted_at = time.monotonic()
    tally.promotion = tally.promoted_at - tally.killed_at
    time.sleep(RECOVER)
    after = set_up.counts(tally.target)
    tally.connections, tally.map_reads = after[0] - before[0], after[1] - before[1]


def _finish(tally: Tally) -> None:
    if tally.first_after and tally.target != "reshard":
        tally.recovered = max(tally.first_after, tally.last_error_at, tally.last_before) - tally.promoted_at


def _next_call(rng: random.Random, chaos: bool) -> tuple[str, bool, bool]:
    """A worker's next call, on both faces: its key, whether it is a GET (else a SET of the
    key's own value), and whether it is given up at a random moment (``--chaos``)."""
    return key_of(rng.randrange(KEYS)), rng.random() < 0.5, chaos and rng.random() < GIVE_UP


def run_sync(client: str, target: str, set_up: SetUp, inflight: int, chaos: bool, seed: int) -> Tally:
    tally = Tally(target, client)
    stop = threading.Event()
    lock = threading.Lock()
    opened = open_sync(client, target, set_up.where)

    def work(worker: int) -> None:
        rng = random.Random(seed * 1000 + worker)
        while not stop.is_set():
            key, read, give_up = _next_call(rng, chaos)
            started = time.monotonic()
            try:
                if read:
                    wait = rng.uniform(0.0005, 0.02)
                    got: object = opened.get(key, timeout=wait) if give_up else opened.get(key)
                else:
                    opened.set(key, value_of(key))
                    got = WROTE
                with lock:
                    tally.answered(key, got, started, set_up.affected)
            except Exception as exc:
                with lock:
                    if give_up and isinstance(exc, DualioTimeout | RetriesExhausted):  # its own short timeout
                        tally.given_up += 1
                    else:
                        tally.failed(exc)

    workers = 0 if client == "none" else inflight
    threads = [threading.Thread(target=work, args=(w,), daemon=True) for w in range(workers)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(STEADY)
        with lock:
            tally.steady_calls = tally.calls
        tally.steady_per_second = tally.steady_calls / STEADY
        _event(set_up, tally)
    finally:
        stop.set()
        for thread in threads:
            thread.join(TIMEOUT * 3)
        with contextlib.suppress(Exception):
            opened.close()
    _finish(tally)
    return tally


def run_async(client: str, target: str, set_up: SetUp, inflight: int, chaos: bool, seed: int) -> Tally:
    tally = Tally(target, client)

    async def main() -> None:
        opened = await open_async(client, target, set_up.where)
        done = anyio.Event()

        async def work(worker: int) -> None:
            rng = random.Random(seed * 1000 + worker)
            while not done.is_set():
                key, read, give_up = _next_call(rng, chaos)
                started = time.monotonic()
                with anyio.CancelScope() as scope:
                    if give_up:
                        scope.deadline = anyio.current_time() + rng.uniform(0.0, 0.02)
                    try:
                        if read:
                            got = await opened.get(key)
                        else:
                            await opened.set(key, value_of(key))
                            got = WROTE
                        tally.answered(key, got, started, set_up.affected)
                    except Exception as exc:
                        tally.failed(exc)
                if scope.cancelled_caught:
                    tally.given_up += 1

        try:
            async with anyio.create_task_group() as tasks:
                for w in range(inflight):
                    tasks.start_soon(work, w)
                await anyio.sleep(STEADY)
                tally.steady_calls = tally.calls
                tally.steady_per_second = tally.steady_calls / STEADY
                await anyio.to_thread.run_sync(_event, set_up, tally)
                done.set()
        finally:
            close = getattr(opened, "aclose", None) or opened.close
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await close()

    anyio.run(main, backend=ASYNC_CLIENTS[client])
    _finish(tally)
    return tally


@contextlib.contextmanager
def _set_up(target: str) -> Iterator[SetUp]:
    starter = started_cluster if target in CLUSTERED else started_sentinel_set
    with starter() as servers:
        set_up = (_cluster_set_up(servers, everyone=target == "reshard")  # type: ignore[arg-type]
                  if target in CLUSTERED else _sentinel_set_up(servers))  # type: ignore[arg-type]
        try:
            _fill(set_up, target)
            yield set_up
        finally:
            for probe in [*set_up.probes, *set_up.sentinel_probes]:
                probe.close()


def run(client: str, target: str, inflight: int = INFLIGHT, chaos: bool = False, seed: int = 1) -> Tally:
    """One run of ``client`` on a fresh set-up of ``target``."""
    if target == "sentinel" and client in NO_SENTINEL:
        return Tally(target, client, skipped=NO_SENTINEL[client])
    with _set_up(target) as set_up, _stderr_kept(client):
        if client in ASYNC_CLIENTS:
            return run_async(client, target, set_up, inflight, chaos, seed)
        return run_sync(client, target, set_up, inflight, chaos, seed)


@contextlib.contextmanager
def _stderr_kept(client: str) -> Iterator[None]:
    """For glide's clients: what their native core writes to the process's standard error
    whatever its logger is told (a line per command failed on a lost node), kept out of
    the run's output and counted on it."""
    if not client.startswith("glide"):
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as kept:
        os.dup2(kept.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            kept.seek(0)
            lines = sum(1 for _ in kept)
            if lines:
                print(f"  ({client}'s core wrote {lines} lines to standard error, kept out of this output)",
                      flush=True)


def table(tallies: list[Tally]) -> str:
    lines = ["| set-up | client | GET+SET/s before | calls | wrong | errors to the caller | given up "
             "| promotion (reshard), s | recovered, s after it | slowest call, s "
             "| connections after the kill | map reads |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for t in tallies:
        if t.skipped:
            lines.append(f"| {t.target} | {t.client} | {t.skipped} |  |  |  |  |  |  |  |  |  |")
            continue
        errors = ", ".join(f"{n} {name}" for name, n in t.errors.most_common()) or "0"
        recovered = ("-" if t.client == "none" or t.target == "reshard"
                     else "never" if t.recovered is None else f"{t.recovered:+.2f}")
        reads = "-" if t.target == "sentinel" else t.map_reads
        slowest = "-" if t.client == "none" else f"{t.slowest:.2f}"
        lines.append(f"| {t.target} | {t.client} | {t.steady_per_second:,.0f} | {t.calls:,} | {t.wrong} "
                     f"| {errors} | {t.given_up} | {t.promotion:.2f} | {recovered} | {slowest} "
                     f"| {t.connections} | {reads} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dualio.lab.failover",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--target", default=",".join(TARGETS), help=f"{', '.join(TARGETS)} (comma-separated)")
    parser.add_argument("--clients", default="", help=f"comma-separated, of {', '.join(CLIENTS)} "
                        "(default: all; with --chaos, dualio's)")
    parser.add_argument("--inflight", type=int, default=INFLIGHT)
    parser.add_argument("--chaos", action="store_true", help="give a tenth of the calls up at random")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", default=None, help="also write the tallies to this file")
    parser.add_argument("--markdown", default=None, help="also write the table to this file")
    args = parser.parse_args(argv)
    logging.getLogger("redis").setLevel(logging.CRITICAL)
    clients = args.clients.split(",") if args.clients else list(DUALIO if args.chaos else CLIENTS)
    bad_for_chaos = [c for c in clients if args.chaos and c not in DUALIO]
    if bad_for_chaos:
        parser.error(f"--chaos gives calls up with dualio's timeouts: {bad_for_chaos} cannot")
    unknown = [c for c in clients if c not in CLIENTS]
    if unknown:
        parser.error(f"unknown clients {unknown}; choose from {', '.join(CLIENTS)}")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"failover: {args.inflight} in flight, call timeout {TIMEOUT:g} s, seed {seed}", flush=True)
    tallies = []
    for target in args.target.split(","):
        for client in clients:
            tally = run(client, target, args.inflight, args.chaos, seed)
            tallies.append(tally)
            print(f"  {target} {client}: {json.dumps(tally.summary())}", flush=True)
    print(table(tallies))
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(f"# Failover\n\n`python -m dualio.lab.failover {' '.join(argv or sys.argv[1:])}`, "
                      f"{args.inflight} calls in flight, call timeout {TIMEOUT:g} s, seed {seed}\n\n"
                      + table(tallies) + "\n")
    if args.json:
        with open(args.json, "w") as out:
            json.dump([t.summary() for t in tallies], out, indent=2)
    bad = [t for t in tallies
           if t.wrong or (args.chaos and not t.skipped
                          and (t.errors or (t.recovered is None and t.target != "reshard")))]
    for t in bad:
        print(f"FAILED {t.target} {t.client} (seed {seed}): {t.wrong} wrong, errors {dict(t.errors)} "
              f"{t.error_samples}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
