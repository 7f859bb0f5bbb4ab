"""The Redis scenario's cancel storm: GETs given up at random moments while their
answers are under way, through a proxy that delays every chunk from the server. What
it counts: answers that reach the wrong call, and connections the client opens again."""

from __future__ import annotations

import functools
import random
import threading
from dataclasses import dataclass

import anyio

from dualio.lab.bench.redis_clients import GaveUp, Opening, RedisMode, key_of, value_of
from dualio.lab.bench.workloads import Outcome, Workload, drive_async, drive_threads, run_on
from dualio.lab.common.fault_proxy import FaultProxy, Toxic

LATENCY = 0.02
"""What the proxy adds to every chunk from the server; calls are given up within 2×."""


@dataclass
class StormOutcome:
    """The storm's calls (an answer checked, or given up), the calls given up, and the
    connections the client opened once the storm began (0: it never reconnected)."""

    outcome: Outcome
    given_up: int
    new_connections: int


def storm(mode: RedisMode, server: tuple[str, int], work: Workload, seed: int) -> StormOutcome:
    """``work.total`` GETs, ``work.inflight`` at once, through a proxy that delays every
    chunk from the server by ``LATENCY``; each call is given up at a random moment in
    (1 ms, 2·LATENCY), the same moments for every mode of a round (``seed``), so many
    end with their request sent and the answer under way. Every answer that does arrive
    is checked against its key's value, and one GET after the storm must still be
    answered right. First, with the latency already set, as many calls at once as in
    the storm: a client with a pool opens what it uses then, so the storm counts only
    the connections it opens again. A storm in which no call was answered measured
    nothing, and counts as an error."""
    rng = random.Random(seed)
    moments = [rng.uniform(0.001, 2 * LATENCY) for _ in range(work.total)]
    with FaultProxy(server) as proxy:
        host, port = proxy.address
        opening = Opening(host, port, work.timeout)
        proxy.set(Toxic("latency", LATENCY))
        if mode.face == "sync":
            stormed = _storm_sync(mode, opening, proxy, work, moments)
        else:
            stormed = run_on(mode.backend,
                             functools.partial(_storm_async, mode, opening, proxy, work, moments))
    if stormed.given_up >= work.total:
        stormed.outcome.failed(RuntimeError(f"all {work.total} calls were given up: nothing was answered"))
    return stormed


def _warming(work: Workload) -> Workload:
    return Workload(4 * work.inflight, work.inflight, 0.0, work.timeout)


def _count_in(outcome: Outcome, warming: Outcome) -> None:
    """The warm-up's wrong answers and failures are the storm's too."""
    outcome.wrong += warming.wrong
    outcome.errors += warming.errors
    outcome.first_error = outcome.first_error or warming.first_error


def _storm_sync(mode: RedisMode, opening: Opening, proxy: FaultProxy, work: Workload,
                moments: list[float]) -> StormOutcome:
    assert mode.open_sync is not None
    handle = mode.open_sync(opening)
    given_up = 0
    lock = threading.Lock()

    def warm(index: int) -> bool:
        return handle.get(key_of(index)) == value_of(index)

    def call(index: int) -> bool:
        nonlocal given_up
        try:
            return handle.get_within(key_of(index), moments[index]) == value_of(index)
        except GaveUp:
            with lock:
                given_up += 1
            return True

    try:
        warming = drive_threads(lambda: (warm, _nothing), _warming(work))
        opened = proxy.accepted
        outcome = drive_threads(lambda: (call, _nothing), work)
        _count_in(outcome, warming)
        proxy.clear()
        if handle.get(key_of(1)) != value_of(1):
            outcome.wrong += 1
        return StormOutcome(outcome, given_up, proxy.accepted - opened)
    finally:
        handle.close()


def _nothing() -> None:
    pass


async def _storm_async(mode: RedisMode, opening: Opening, proxy: FaultProxy, work: Workload,
                       moments: list[float]) -> StormOutcome:
    assert mode.open_async is not None
    handle = await mode.open_async(opening)
    given_up = 0

    async def warm(index: int) -> bool:
        return await handle.get(key_of(index)) == value_of(index)

    async def call(index: int) -> bool:
        nonlocal given_up
        with anyio.move_on_after(moments[index]) as scope:
            got = await handle.get(key_of(index))
        if scope.cancelled_caught:
            given_up += 1
            return True
        return got == value_of(index)

    try:
        warming = await drive_async(warm, _warming(work))
        opened = proxy.accepted
        outcome = await drive_async(call, work)
        _count_in(outcome, warming)
        proxy.clear()
        if await handle.get(key_of(1)) != value_of(1):
            outcome.wrong += 1
        return StormOutcome(outcome, given_up, proxy.accepted - opened)
    finally:
        await handle.aclose()
