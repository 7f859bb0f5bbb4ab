"""Edges of particular transports: backpressure under a timeout, queued workers.

What every transport must do (saying goodbye on close, every method on uvloop,
...) is stated once in the contract suite, tests/contract/.
"""

from __future__ import annotations

import functools
import math
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import pytest

from dualio import AsyncClient, DualioTimeout
from tests.conftest import ServerProcess
from tests.scripted_peer import ScriptedPeer, stall

pytestmark = pytest.mark.timeout(30)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_timeout_holds_while_the_socket_cannot_drain() -> None:
    """A peer that stops reading fills the buffers; a call still ends at its timeout."""
    with ScriptedPeer(stall()) as peer:
        async with AsyncClient(*peer.address, timeout=0.5) as client:
            with anyio.fail_after(20):
                for _ in range(50):  # queue requests until writing is paused (a few suffice)
                    with anyio.move_on_after(0.01):
                        await client.echo(b"x" * (1 << 20))
                started = time.perf_counter()
                with pytest.raises(DualioTimeout):
                    await client.ping(timeout=0.3)
                assert time.perf_counter() - started < 1.5


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("emulation", ["callback", "pool"])
async def test_an_emulated_timeout_covers_waiting_for_a_worker(server: ServerProcess, emulation: str) -> None:
    executor = ThreadPoolExecutor(1)
    try:
        async with AsyncClient(*server.address, transport="emulated", emulation=emulation,
                               executor=executor) as client:
            executor.submit(time.sleep, 1.5)  # the only worker is busy
            started = time.perf_counter()
            with pytest.raises(DualioTimeout):
                await client.echo(b"x", timeout=0.2)
            assert time.perf_counter() - started < 1.0
            assert await client.echo(b"after", timeout=5) == b"after"
    finally:
        executor.shutdown()


def test_an_answer_wakes_the_thread_that_waits_for_it_not_every_waiter(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads sharing a blocking Client sleep until their own call has news or the
    reader role is passed to them: about one wake-up per call, however many threads
    wait (waking every waiter on every answer costs one per waiting thread: over 4 per
    call here)."""
    from dualio_sync import Client
    from dualio_transports.blocking.connection import BlockingConnection

    wakes = 0
    sleep = BlockingConnection._sleep

    def counted(self: BlockingConnection, call: object, left: float | None) -> None:
        nonlocal wakes
        sleep(self, call, left)  # type: ignore[arg-type]
        wakes += 1  # under the connection's lock

    monkeypatch.setattr(BlockingConnection, "_sleep", counted)
    threads, each = 20, 25
    with Client(*server.address, timeout=10) as client:
        def run(n: int) -> None:
            for i in range(each):
                payload = b"%d/%d" % (n, i)
                assert client.echo(payload, delay=0.002 * (i % 3)) == payload

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, range(threads)))
    calls = threads * each
    assert calls // 4 < wakes <= 2 * calls, wakes  # about 1 per call; waking all: over 4


@pytest.mark.parametrize("where", ["CallTable.wait_end", "BlockingConnection._read_once"])
def test_an_interrupt_as_a_lone_caller_takes_the_reader_role_gives_it_back(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A KeyboardInterrupt between taking the free reader role (with the call's start)
    and reading (after its request left), or as the read begins, before it holds the
    role itself: the role is given back, so the next call on the connection reads its
    answer (it would otherwise wait for a reader that will never come, until its
    timeout)."""
    from dualio_sync import Client
    from dualio_transports.blocking.connection import BlockingConnection
    from dualio_transports.wire.call_table import CallTable

    owner_name, name = where.split(".")
    owner = {"CallTable": CallTable, "BlockingConnection": BlockingConnection}[owner_name]
    original = getattr(owner, name)
    interrupted: list[bool] = []

    def interrupt_once(self: object, *args: Any, **kwargs: Any) -> Any:
        if not interrupted:
            interrupted.append(True)
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    with Client(*server.address, timeout=5, retry=None) as client:
        assert client.echo(b"warm") == b"warm"
        monkeypatch.setattr(owner, name, interrupt_once)
        with pytest.raises(KeyboardInterrupt):
            client.echo(b"interrupted")
        monkeypatch.undo()
        assert interrupted
        assert client.echo(b"after", timeout=2) == b"after"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_waiting_call_ends_at_its_timeout_while_another_call_reads(server: ServerProcess) -> None:
    """On the anyio transport a waiter has no cancel scope of its own while a reader reads:
    the reader's read ends at the earliest timeout of all and wakes the waiter whose
    time is up. Whichever of the two reads, the short call ends at its own timeout,
    the long one gets its answer, and the connection goes on."""
    async with AsyncClient(*server.address, transport="anyio", timeout=10) as client:
        ended: dict[str, float] = {}
        started = time.perf_counter()

        async def long_call() -> None:
            assert await client.echo(b"long", delay=1.0) == b"long"
            ended["long"] = time.perf_counter() - started

        async def short_call(timeout: float) -> None:
            with pytest.raises(DualioTimeout):
                await client.echo(b"short", delay=1.0, timeout=timeout)
            ended[f"short {timeout}"] = time.perf_counter() - started

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(long_call)
            await anyio.sleep(0.05)  # the long call reads; the short ones wait
            tasks.start_soon(short_call, 0.4)
            tasks.start_soon(short_call, 0.2)
        assert 0.2 <= ended["short 0.2"] < 0.2 + 0.05 + 0.3, ended
        assert 0.4 <= ended["short 0.4"] < 0.4 + 0.05 + 0.3, ended
        assert ended["long"] >= 1.0
        assert await client.echo(b"after") == b"after"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_requests_that_joined_a_writer_leave_even_when_it_is_cancelled_before_sending_them(
    server: ServerProcess,
) -> None:
    """A request written while another task holds the write lock joins that writer's
    batch and its caller goes on to wait. Here the writer's send of its own request
    finishes, and the writer is cancelled before it sends what joined meanwhile: what
    joined still leaves, and each of those calls gets its own answer."""
    async with AsyncClient(*server.address, transport="anyio", timeout=10) as client:
        await client.ping()
        conn = client._conn
        conn._send_now = None  # type: ignore[union-attr]  # writes go through the stream (as over TLS), held here
        conn._asyncio_stream = None  # type: ignore[union-attr]  # on asyncio too
        stream = conn._stream  # type: ignore[union-attr]
        send = stream.send
        in_send, release = anyio.Event(), anyio.Event()

        async def held_send(data: bytes) -> None:
            await send(data)  # the writer's own request leaves, then it is held, shielded
            in_send.set()
            with anyio.CancelScope(shield=True):
                await release.wait()

        stream.send = held_send
        answers: dict[int, bytes] = {}
        writer_scope = anyio.CancelScope()

        async def writer() -> None:
            with writer_scope:
                await client.echo(b"writer", delay=0.2)

        async def joined(n: int) -> None:
            answers[n] = await client.echo(b"joined %d" % n)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(writer)
                await in_send.wait()
                stream.send = send
                for n in range(3):
                    tasks.start_soon(joined, n)
                await anyio.sleep(0.05)  # they joined the held writer's batch
                assert not answers
                writer_scope.cancel()
                release.set()
        assert writer_scope.cancelled_caught
        assert answers == {n: b"joined %d" % n for n in range(3)}
        assert await client.echo(b"after") == b"after"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_deadline_seen_as_past_just_as_a_send_begins_does_not_cut_the_frame(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine a call's deadline can pass between taking its batch from the
    queue and the send: the batch goes (it had time when it left the queue) and nothing
    is cut. The connection, and the call already waiting on it, go on."""
    from dualio_transports.wire.frame_write import FrameWrite

    async with AsyncClient(*server.address, transport="anyio", timeout=10) as client:
        await client.ping()
        conn = client._conn
        conn._send_now = None  # type: ignore[union-attr]  # every write waits for the socket (as over TLS)
        conn._asyncio_stream = None  # type: ignore[union-attr]  # on asyncio too
        wait_until = FrameWrite.wait_until
        late = [True]

        def passed_already(write: FrameWrite) -> float:
            if late:  # the call's deadline, as the send begins, is seen as past
                late.pop()
                write.until = time.monotonic() - 0.001
            return wait_until(write)

        waiting: list[bytes] = []

        async def earlier() -> None:
            waiting.append(await client.echo(b"earlier", delay=0.3))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(earlier)
                await anyio.sleep(0.05)  # its request is out; it waits for the answer
                monkeypatch.setattr(FrameWrite, "wait_until", passed_already)
                assert await client.echo(b"late") == b"late"
                assert not late
        assert waiting == [b"earlier"]
        assert client._conn is conn
        assert await client.echo(b"after") == b"after"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_requests_that_joined_a_writer_whose_time_ran_out_still_leave(server: ServerProcess) -> None:
    """A writer's own request went out; the requests that joined it meanwhile are sent
    after it, and its deadline passes before they are: it times out, they still leave
    (none is dropped, the connection stays), and each of their calls gets its answer."""
    async with AsyncClient(*server.address, transport="anyio", timeout=10) as client:
        await client.ping()
        conn = client._conn
        conn._send_now = None  # type: ignore[union-attr]  # writes go through the stream (as over TLS), held here
        conn._asyncio_stream = None  # type: ignore[union-attr]  # on asyncio too
        stream = conn._stream  # type: ignore[union-attr]
        send = stream.send
        in_send = anyio.Event()

        async def held_send(data: bytes) -> None:
            await send(data)  # the writer's own request leaves, then it is held past its deadline
            stream.send = send
            in_send.set()
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.4)

        stream.send = held_send
        answers: dict[int, bytes] = {}
        writer_error: list[BaseException] = []

        async def writer() -> None:
            try:
                await client.echo(b"writer", timeout=0.2)
            except DualioTimeout as exc:
                writer_error.append(exc)

        async def joined(n: int) -> None:
            answers[n] = await client.echo(b"joined %d" % n, timeout=5)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(writer)
                await in_send.wait()
                for n in range(3):
                    tasks.start_soon(joined, n)
        assert len(writer_error) == 1
        assert answers == {n: b"joined %d" % n for n in range(3)}
        assert client._conn is conn
        assert await client.echo(b"after") == b"after"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_cancelled_pooled_call_is_cancelled_not_timed_out(server: ServerProcess) -> None:
    """The pool's timeout on asyncio is a timer that cancels the executor's future; a
    caller cancelled from outside gets CancelledError, never the timer's DualioTimeout,
    even when its time is up too."""
    import asyncio

    async with AsyncClient(*server.address, transport="emulated", emulation="pool", timeout=10) as client:
        task = asyncio.ensure_future(client.echo(b"x", delay=1.0, timeout=0.2))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        with pytest.raises(DualioTimeout):
            await client.echo(b"x", delay=1.0, timeout=0.2)
        assert await client.echo(b"after") == b"after"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_closing_a_connection_whose_peer_reads_nothing_ends_within_its_grace() -> None:
    """The goodbye cannot leave while the socket's buffers are full: after the grace
    (one second) the socket is aborted, and aclose returns."""
    with ScriptedPeer(stall()) as peer:
        client = AsyncClient(*peer.address, timeout=0.5)
        await client.open()
        for _ in range(50):  # fill the buffers until writing pauses
            with anyio.move_on_after(0.01):
                await client.echo(b"x" * (1 << 20))
        started = time.perf_counter()
        with anyio.fail_after(5):
            await client.aclose()
        assert 0.9 <= time.perf_counter() - started < 2.0


def test_closing_a_portal_client_whose_peer_reads_nothing_ends_within_its_grace() -> None:
    """The same on the portal's loop thread, where a close is a callback, not a task."""
    from dualio_sync import Client
    from dualio_sync import DualioTimeout as SyncTimeout

    with ScriptedPeer(stall()) as peer:
        client = Client(*peer.address, transport="portal", timeout=0.2)
        for _ in range(20):  # fill the buffers until writing pauses
            try:
                client.echo(b"x" * (1 << 20), timeout=0.05)
            except SyncTimeout:
                pass
        started = time.perf_counter()
        client.close()
        assert 0.9 <= time.perf_counter() - started < 2.0
        assert client.closed


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_pooled_call_on_a_shut_down_executor_is_a_usage_error(server: ServerProcess) -> None:
    """The user's executor shut down under an open client: a UsageError that says so, on
    asyncio's own pool path as on the others."""
    from dualio import UsageError

    executor = ThreadPoolExecutor(1)
    async with AsyncClient(*server.address, transport="emulated", emulation="pool",
                           executor=executor, timeout=5) as client:
        assert await client.echo(b"before") == b"before"
        executor.shutdown()
        with anyio.fail_after(5), pytest.raises(UsageError, match="shut down"):
            await client.echo(b"after")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_request_queued_behind_a_stuck_writer_is_taken_back_at_its_deadline_after_any_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The anyio transport: a request that joined the batch of a writer the peer holds up
    is still in the outbox when its deadline passes, even when its first wait ended
    earlier (a keepalive check, here every 50 ms): it is taken back, never sent, and the
    call times out writing it, as on every transport."""
    from dualio_transports.wire.call_table import CallState, CallTable

    def early(self: CallTable[object], call: CallState[object] | None, now: float) -> float:
        return min(math.inf if call is None else call.until, now + 0.05)

    with ScriptedPeer(stall()) as peer:
        async with AsyncClient(*peer.address, transport="anyio", keepalive=None, retry=None) as client:
            monkeypatch.setattr(CallTable, "wait_end", early)
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(functools.partial(client.echo, bytes(15 << 20), timeout=5.0))
                    await anyio.sleep(0.3)  # the big request fills the socket
                    with pytest.raises(DualioTimeout, match="timed out writing the request") as caught:
                        await client.echo(b"queued", timeout=0.4)
                    tasks.cancel_scope.cancel()
    assert caught.value.request_id is None


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_a_call_whose_time_is_up_before_its_request_leaves_keeps_the_connection(
    server: ServerProcess,
) -> None:
    """On trio over plain TCP a lone call writes on the socket itself; one whose deadline
    has passed by then times out with nothing sent, and the connection stays (a timeout is
    an OSError too, and was once taken for the socket's failure)."""
    async with AsyncClient(*server.address, timeout=5) as client:
        first = client._conn
        outcomes = set()
        for _ in range(200):
            try:
                await client.echo(b"x", timeout=1e-9)
                outcomes.add("answered")
            except DualioTimeout as exc:
                outcomes.add(type(exc).__name__)
        assert client._conn is first and first is not None and not first.closed, outcomes
        assert await client.echo(b"after") == b"after"
