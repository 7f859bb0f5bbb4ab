"""The native async transport, on anyio (so on asyncio and on trio).

There is no background task: as in the blocking transport, a caller waiting
for an answer takes the *reader role*, reads what arrives and hands each frame
to the call it belongs to; when its own answer is in, it passes the role to the
next waiter. So a connection owns no task that could outlive it, it can be
closed from any task on its loop, and the two transports share one design.
Writes of whole frames are serialised by a lock and shielded from cancellation,
so a cancelled caller never leaves half a frame on the wire; they await the
socket's drain (backpressure) under the call's deadline.

Cancellation of a waiting call (task cancel, cancel scope, ``wait_for``,
``fail_after``) abandons its request id: the server is sent a CANCEL, the late
answer is dropped, and the id is not reused before the server's final frame.
"""

from __future__ import annotations

import math
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import TypeVar

import anyio
from anyio.abc import ByteStream

from transports.running_loop import LoopHandle
from transports.wire import methods
from transports.wire.client_protocol import ClientProtocol, connection_ending, decode_error
from transports.wire.errors import (
    ClosedError,
    ConnectError,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    ProtocolError,
)
from transports.wire.frames import DEFAULT_MAX_FRAME_SIZE, Frame, FrameKind

T = TypeVar("T")
_CLOSE_GRACE = 1.0


class _Pending:
    __slots__ = ("done", "error", "event", "items", "result")

    def __init__(self) -> None:
        self.event = anyio.Event()  # set on completion, on a new item, or to pass the reader role
        self.done = False
        self.result: bytes | None = None
        self.error: DualioError | None = None
        self.items: deque[bytes] = deque()

    def wake(self) -> None:
        self.event.set()


class AnyioConnection:
    """A connected, handshaken connection. Use from the loop (and task) that opened it."""

    def __init__(self, stream: ByteStream, protocol: ClientProtocol) -> None:
        self._stream = stream
        self._proto = protocol
        self._pending: dict[int, _Pending] = {}
        self._write_lock = anyio.Lock()
        self._failure: DualioError | None = None
        self._closed = False
        self._outbox: list[bytes] = []
        self._queued = 0  # frames ever queued ...
        self._sent = 0  # ... and how many of them are on the wire
        self._reading = False
        self._waiters: dict[_Pending, None] = {}  # ordered: the next reader is the first
        self.loop = LoopHandle.current()

    @classmethod
    async def connect(
        cls,
        host: str,
        port: int,
        *,
        connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None,
        token: str | None = None,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    ) -> AnyioConnection:
        protocol = ClientProtocol(token=token, max_frame_size=max_frame_size)
        deadline = math.inf if connect_timeout is None else time.monotonic() + connect_timeout
        try:
            with anyio.fail_after(connect_timeout):
                stream: ByteStream
                if tls is None:
                    stream = await anyio.connect_tcp(host, port)
                else:
                    stream = await anyio.connect_tcp(
                        host, port, ssl_context=tls, tls_standard_compatible=False
                    )
        except TimeoutError as exc:
            raise ConnectTimeout(f"connecting to {host}:{port} timed out") from exc
        except (OSError, ssl.SSLError) as exc:
            raise ConnectError(f"cannot connect to {host}:{port}: {exc}") from exc
        conn = cls(stream, protocol)
        try:
            await conn._start(deadline)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await conn.aclose()
            raise
        return conn

    async def _start(self, deadline: float) -> None:
        pending = _Pending()
        self._pending[0] = pending
        try:
            await self._write(self._proto.hello(), deadline)
            await self._wait(pending, deadline, want_item=False)
        except DualioTimeout as exc:
            raise ConnectTimeout("the server did not answer the handshake in time") from exc
        finally:
            self._pending.pop(0, None)
        if pending.error is not None:
            if isinstance(pending.error, ConnectError):
                raise pending.error
            raise ConnectError(f"handshake failed: {pending.error}") from pending.error

    # -- calls --------------------------------------------------------------------

    async def call(self, op: methods.Call[T], timeout: float | None) -> T:
        pending = _Pending()
        await self._roundtrip(op.method, op.args, pending, timeout)
        assert pending.result is not None
        return op.decode(pending.result)

    async def ping(self, timeout: float | None) -> float:
        pending = _Pending()
        started = time.perf_counter()
        await self._roundtrip(None, b"", pending, timeout)
        return time.perf_counter() - started

    async def stream(self, op: methods.StreamCall[T], timeout: float | None) -> AsyncIterator[T]:
        pending = _Pending()
        rid = await self._send_request(op.method, op.args, pending, _deadline(timeout))
        try:
            while True:
                try:
                    await self._wait(pending, _deadline(timeout), want_item=True)
                except DualioTimeout:
                    raise DualioTimeout(f"no stream item within {timeout}s") from None
                while pending.items:
                    yield op.decode_item(pending.items.popleft())
                if pending.done:
                    if pending.error is not None:
                        raise pending.error
                    return
        finally:
            if not pending.done:
                await self._abandon(rid)

    async def _roundtrip(
        self, method: str | None, args: bytes, pending: _Pending, timeout: float | None
    ) -> None:
        deadline = _deadline(timeout)
        rid = await self._send_request(method, args, pending, deadline)
        try:
            await self._wait(pending, deadline, want_item=False)
        except BaseException:
            await self._abandon(rid)
            raise
        if pending.error is not None:
            raise pending.error

    async def _send_request(
        self, method: str | None, args: bytes, pending: _Pending, deadline: float
    ) -> int:
        self._check_usable()
        if method is None:
            rid, data = self._proto.ping()
        else:
            rid, data = self._proto.request(method, args)
        self._pending[rid] = pending
        try:
            await self._write(data, deadline)
        except BaseException:
            self._pending.pop(rid, None)
            if self._failure is not None:
                self._proto.release(rid)
            else:  # the frame may still go out with a later batch: abandon, never reuse
                self._queue(self._proto.abandon(rid))
            raise
        return rid

    async def _abandon(self, rid: int) -> None:
        self._pending.pop(rid, None)
        if self._failure is None and not self._closed:
            data = self._proto.abandon(rid)
            if data:
                with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_GRACE):
                    await self._write(data, math.inf)

    def _check_usable(self) -> None:
        if self._failure is not None:
            raise ClosedError(f"the connection is closed: {self._failure}") from self._failure
        if self._closed:
            raise ClosedError("the connection is closed")

    def _queue(self, data: bytes) -> int:
        if data:
            self._outbox.append(data)
            self._queued += 1
        return self._queued

    async def _write(self, data: bytes, deadline: float) -> None:
        """Put one whole frame on the wire, or fail the connection: never half a frame.

        Frames queued by callers that wait for the lock meanwhile go out together
        with the next send (one system call for many requests).
        """
        ticket = self._queue(data)
        try:
            self._write_lock.acquire_nowait()
        except anyio.WouldBlock:
            remaining = None if deadline == math.inf else deadline - time.monotonic()
            with anyio.move_on_after(remaining) as waiting:
                await self._write_lock.acquire()
            if waiting.cancelled_caught:
                raise DualioTimeout("timed out waiting to write the request") from None
        try:
            if self._sent >= ticket:
                return
            self._check_usable()
            batch = self._outbox[0] if len(self._outbox) == 1 else b"".join(self._outbox)
            self._outbox.clear()
            upto = self._queued
            with anyio.CancelScope(shield=True) as writing:
                if deadline != math.inf:
                    writing.deadline = anyio.current_time() + max(deadline - time.monotonic(), 0)
                await self._stream.send(batch)
            if writing.cancelled_caught:
                self._fail(DualioTimeout("timed out in the middle of writing a frame"))
                raise DualioTimeout("timed out writing the request")
            self._sent = upto
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            self._fail(ClosedError(f"the connection broke: {exc}"))
            raise self._failure or ClosedError("the connection broke") from exc
        finally:
            self._write_lock.release()

    # -- reading ------------------------------------------------------------------

    async def _wait(self, pending: _Pending, deadline: float, want_item: bool) -> None:
        """Return when ``pending`` is done (or has an item); read while nobody else does."""
        remaining = None if deadline == math.inf else max(deadline - time.monotonic(), 0)
        try:
            with anyio.fail_after(remaining):
                while not (pending.done or (want_item and pending.items)):
                    if not self._reading:
                        self._reading = True
                        try:
                            await self._read_some()
                        finally:
                            self._reading = False
                        continue
                    pending.event = anyio.Event()
                    self._waiters[pending] = None
                    try:
                        await pending.event.wait()
                    finally:
                        self._waiters.pop(pending, None)
        except TimeoutError:
            raise DualioTimeout("the call timed out") from None
        finally:
            self._pass_reader_role()

    def _pass_reader_role(self) -> None:
        if not self._reading and self._waiters:
            next(iter(self._waiters)).wake()

    async def _read_some(self) -> None:
        failure: DualioError | None = None
        try:
            data = await self._stream.receive()
            failure = self._dispatch(self._proto.receive(data))
        except anyio.EndOfStream:
            failure = ClosedError("the server closed the connection")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            failure = ClosedError(f"the connection broke: {exc}")
        except ssl.SSLError as exc:
            failure = ClosedError(f"TLS failure: {exc}")
        except ProtocolError as exc:
            failure = exc
        if failure is not None:
            self._fail(failure)

    def _dispatch(self, frames: list[Frame]) -> DualioError | None:
        for frame in frames:
            kind, rid = frame.kind, frame.id
            if rid == 0:
                ending = connection_ending(frame)
                if ending is not None:
                    return ending
                if (pending := self._pending.get(0)) is not None:
                    _finish(pending)
                continue
            pending = self._pending.get(rid)
            if pending is None:
                continue
            if kind is FrameKind.STREAM_ITEM:
                pending.items.append(frame.payload)
                pending.wake()
                continue
            del self._pending[rid]
            if kind is FrameKind.ERROR:
                pending.error = decode_error(frame.payload)
            else:
                pending.result = frame.payload
            _finish(pending)
        return None

    def _fail(self, failure: DualioError) -> None:
        if self._failure is None:
            self._failure = failure
        for pending in self._pending.values():
            pending.error = failure
            _finish(pending)
        self._pending.clear()

    # -- closing --------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed or self._failure is not None

    @property
    def dropped(self) -> int:
        return self._proto.dropped

    async def aclose(self) -> None:
        """Say goodbye and fail waiting calls with ClosedError. Any task on the loop may close."""
        if self._closed:
            return
        with anyio.CancelScope(shield=True):
            if self._failure is None:
                with anyio.move_on_after(_CLOSE_GRACE):
                    try:
                        await self._write(self._proto.close(), math.inf)
                    except DualioError:
                        pass
            self._closed = True
            self._fail(ClosedError("the connection was closed"))
            await self._stream.aclose()


def _finish(pending: _Pending) -> None:
    pending.done = True
    pending.wake()


def _deadline(timeout: float | None) -> float:
    return math.inf if timeout is None else time.monotonic() + timeout
