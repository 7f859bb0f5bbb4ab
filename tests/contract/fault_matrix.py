"""The fault matrix: every toxic of :mod:`dualio.lab.common.fault_proxy` against every transport.

A cell opens a client with the default settings (retry, keepalive, timeouts) through
a :class:`FaultProxy` to the real server, sets one toxic, and makes calls while it
is in force: a small ``echo``, a short ``words`` stream, and (for the toxics that
matter to it) an ``echo`` larger than the socket buffers. Each of them returns the
right answer or raises a typed :class:`DualioError`, never later than its timeout
plus :data:`LATE`, and nothing reaches the wrong caller. Then the toxic is cleared,
and the *same client object* must answer :data:`RECOVERY_CALLS` calls in a row
within :data:`RECOVERY` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio
import pytest

from dualio import DualioError, RetryPolicy
from dualio.lab.common.fault_proxy import FaultProxy, Toxic
from dualio_transports.dualio_protocol.methods import word_at
from tests.conftest import ServerProcess
from tests.contract.faces import Face, Transport

CALL_TIMEOUT = 0.4  # each call made while a toxic is in force
LATE = 0.5  # how far past its timeout a call may end
RECOVERY = 5.0
RECOVERY_CALLS = 10
BIG = 12 * 1024 * 1024  # more than loopback's socket buffers on both sides hold
STREAM_WORDS = 4

NETWORK = (
    Toxic("latency", 0.1),
    Toxic("bandwidth", 256 * 1024),
    Toxic("slicer", 7),
    Toxic("slow_close", 0.3),
    Toxic("slow_reader", 64 * 1024),
)
OUTAGES = (
    Toxic("blackhole"),
    Toxic("timeout", 0.2),
    Toxic("reset_peer"),
    Toxic("limit_data", 700),
    Toxic("half_open"),
)
BIG_REQUEST = {"slow_reader", "bandwidth", "limit_data"}
"""Toxics that also get a request larger than the socket buffers (a write stalls or tears)."""


async def _bounded(
    name: str, timeout: float, fn: Callable[[], Awaitable[object]], check: Callable[[object], bool],
    problems: list[str],
) -> None:
    started = time.monotonic()
    try:
        result = await fn()
    except DualioError:
        result = None
    except Exception as exc:  # not a typed dualio error: the cell fails
        problems.append(f"{name} raised {type(exc).__name__}: {exc}")
        return
    took = time.monotonic() - started
    if took > timeout + LATE:
        problems.append(f"{name} took {took:.2f}s, its timeout is {timeout}s")
    if result is not None and not check(result):
        problems.append(f"{name} got a wrong answer: {result!r:.80}")


async def run_cell(server: ServerProcess, transport: Transport, toxic: Toxic) -> None:
    with FaultProxy(server.address) as proxy:
        face = await transport.connect(proxy.address, timeout=30.0, connect_timeout=10.0, retry=RetryPolicy())
        try:
            await _cell(face, proxy, toxic)
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await face.aclose()


async def _cell(face: Face, proxy: FaultProxy, toxic: Toxic) -> None:
    assert await face.echo(b"before") == b"before"
    proxy.set(toxic)
    problems: list[str] = []
    words: list[list[str]] = []

    async def stream() -> list[str]:
        got = await face.words(STREAM_WORDS, timeout=CALL_TIMEOUT)
        words.append(got)
        return got

    def is_words(got: object) -> bool:
        return got == [word_at(i) for i in range(STREAM_WORDS)]

    async with anyio.create_task_group() as tg:
        for n in range(3):
            payload = f"during-{n}".encode()
            tg.start_soon(
                _bounded, f"echo {n}", CALL_TIMEOUT,
                lambda p=payload: face.echo(p, timeout=CALL_TIMEOUT),
                lambda got, p=payload: got == p, problems,
            )
        tg.start_soon(_bounded, "words", CALL_TIMEOUT * (STREAM_WORDS + 1), stream, is_words, problems)
        if toxic.kind in BIG_REQUEST:
            big = bytes(range(256)) * (BIG // 256)
            tg.start_soon(
                _bounded, "big echo", CALL_TIMEOUT, lambda: face.echo(big, timeout=CALL_TIMEOUT),
                lambda got: got == big, problems,
            )
    assert not problems, f"under {toxic}: {problems}"

    proxy.clear()
    started = time.monotonic()
    answered = 0
    failures: list[str] = []
    with anyio.move_on_after(RECOVERY):
        while answered < RECOVERY_CALLS:
            payload = f"after-{answered}".encode()
            try:
                got = await face.echo(payload)
            except DualioError as exc:
                failures.append(f"{type(exc).__name__}: {exc}")
                answered = 0  # in a row
                await anyio.sleep(0.05)
                continue
            assert got == payload, f"after {toxic}: {payload!r} was answered with {got!r}"
            answered += 1
    took = time.monotonic() - started
    assert answered == RECOVERY_CALLS, (
        f"after {toxic} was cleared the client answered {answered} calls in a row in {took:.1f}s; "
        f"failures: {failures[:3]}"
    )


def matrix_case(toxics: tuple[Toxic, ...]) -> Callable[..., Awaitable[None]]:
    """The contract case for ``toxics`` on every transport; each test module takes one
    part of the matrix, so the parts run on separate test workers."""

    @pytest.mark.anyio
    @pytest.mark.timeout(30)
    @pytest.mark.parametrize("toxic", toxics, ids=str)
    async def case(server: ServerProcess, transport: Transport, toxic: Toxic) -> None:
        await run_cell(server, transport, toxic)

    return case
