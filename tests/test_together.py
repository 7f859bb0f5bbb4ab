"""The toolkit's ways of waiting together. ``together``: calls made at once, each run to
its end, the results in order, the first error (in order) raised once all have ended; on
the async face cancelling the caller cancels them all. ``Wakeup``: pauses that one
caller's news ends at once, on both faces."""

from __future__ import annotations

import threading
import time

import anyio
import pytest

from dualio.toolkit import together as together_async
from dualio_sync.toolkit import together

pytestmark = pytest.mark.timeout(60)


def test_blocking_calls_run_at_once_each_to_its_end_and_the_first_error_is_raised() -> None:
    started = threading.Barrier(3, timeout=10)  # all three must be running at once to pass it
    ended: list[int] = []

    def call(n: int) -> int:
        started.wait()
        if n in (1, 2):
            raise ValueError(f"call {n}")
        ended.append(n)
        return n

    assert together([lambda: 7]) == [7]
    with pytest.raises(ValueError, match="call 1"):
        together([lambda n=n: call(n) for n in range(3)])  # type: ignore[misc]
    assert ended == [0]
    started.reset()
    assert together([lambda: (started.wait(), "a")[1], lambda: (started.wait(), "b")[1],
                     lambda: (started.wait(), "c")[1]]) == ["a", "b", "c"]
    assert not [thread for thread in threading.enumerate() if thread.name == "dualio-together"]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_async_calls_run_at_once_and_a_cancel_reaches_every_one() -> None:
    running = 0
    most = 0
    ended: list[int] = []

    async def call(n: int) -> int:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await anyio.sleep(0.05)
            if n == 2:
                raise ValueError("call 2")
            ended.append(n)
            return n
        finally:
            running -= 1

    assert await together_async([lambda: call(0)]) == [0]
    ended.clear()
    with pytest.raises(ValueError, match="call 2"):
        await together_async([lambda n=n: call(n) for n in range(4)])  # type: ignore[misc]
    assert most == 4 and sorted(ended) == [0, 1, 3]
    cancelled: list[int] = []

    async def forever(n: int) -> None:
        try:
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            cancelled.append(n)
            raise

    begun = time.monotonic()
    with anyio.move_on_after(0.1):
        await together_async([lambda n=n: forever(n) for n in range(3)])  # type: ignore[misc]
    assert sorted(cancelled) == [0, 1, 2] and time.monotonic() - begun < 30


def test_a_blocking_pause_ends_when_woken_and_a_later_one_waits_its_time() -> None:
    from dualio_sync.toolkit import Wakeup

    news = Wakeup()
    ended: list[float] = []
    pausers = [threading.Thread(target=lambda: (news.pause(30), ended.append(time.monotonic())))
               for _ in range(3)]
    for pauser in pausers:
        pauser.start()
    woken = time.monotonic()
    while len(ended) < 3 and time.monotonic() - woken < 10:  # a thread not pausing yet is woken later
        news.wake()
        time.sleep(0.01)
    for pauser in pausers:
        pauser.join(10)
    assert len(ended) == 3 and max(ended) - woken < 10
    begun = time.monotonic()
    news.pause(0.05)  # the wake is over: this pause waits
    assert time.monotonic() - begun >= 0.04


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_an_async_pause_ends_when_woken() -> None:
    from dualio.toolkit import Wakeup

    news = Wakeup()
    news.wake()  # nobody pauses yet: nothing to end
    ended: list[float] = []

    async def pauser() -> None:
        await news.pause(30)
        ended.append(time.monotonic())

    async with anyio.create_task_group() as tasks:
        for _ in range(3):
            tasks.start_soon(pauser)
        await anyio.sleep(0.05)
        woken = time.monotonic()
        news.wake()
    assert len(ended) == 3 and max(ended) - woken < 5
    begun = time.monotonic()
    await news.pause(0.05)
    assert time.monotonic() - begun >= 0.04


def test_at_most_at_once_calls_run_at_a_time_and_every_one_runs() -> None:
    from dualio_transports.policy.together import AT_ONCE

    running, most, lock = 0, 0, threading.Lock()

    def call(n: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.01)
        with lock:
            running -= 1
        return n

    count = AT_ONCE * 3 + 1
    assert together([lambda n=n: call(n) for n in range(count)]) == list(range(count))  # type: ignore[misc]
    assert 1 < most <= AT_ONCE


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_at_most_at_once_tasks_run_at_a_time_and_every_one_runs() -> None:
    from dualio_transports.policy.together import AT_ONCE

    running = most = 0

    async def call(n: int) -> int:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await anyio.sleep(0.01)
        running -= 1
        return n

    count = AT_ONCE * 3 + 1
    assert await together_async([lambda n=n: call(n) for n in range(count)]) == list(range(count))  # type: ignore[misc]
    assert most == AT_ONCE
