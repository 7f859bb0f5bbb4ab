"""The native transport's asyncio fast path: an ``asyncio.Protocol`` with futures.

Same interface and the same guarantees as :mod:`transports.native.anyio_connection` (which runs
on trio and on asyncio through anyio); on asyncio and uvloop this one is used
because anyio's cancel scopes and events cost more per call than the call itself
on loopback (docs/results.md has the numbers). Each call is one future, one
timer and one ``transport.write``; frames are written whole by construction
(``write`` buffers them), so cancellation never leaves half a frame on the wire.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import TypeVar, cast

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


class _Stream:
    """A stream call's items, end and the future its consumer waits on."""

    __slots__ = ("done", "error", "items", "waiter")

    def __init__(self) -> None:
        self.items: deque[bytes] = deque()
        self.done = False
        self.error: DualioError | None = None
        self.waiter: asyncio.Future[None] | None = None

    def wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)


def _expire(future: asyncio.Future[None] | asyncio.Future[bytes], message: str) -> None:
    if not future.done():
        future.set_exception(DualioTimeout(message))


class AsyncioConnection(asyncio.Protocol):
    def __init__(self, protocol: ClientProtocol, loop: asyncio.AbstractEventLoop) -> None:
        self._proto = protocol
        self._loop = loop
        self.loop = LoopHandle.current()
        self._transport: asyncio.Transport | None = None
        self._pending: dict[int, asyncio.Future[bytes] | _Stream] = {}
        self._failure: DualioError | None = None
        self._closed = False
        self._paused = False
        self._drained: asyncio.Future[None] | None = None
        self._outbox: list[bytes] = []
        self._lost: asyncio.Future[None] = loop.create_future()

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
    ) -> AsyncioConnection:
        loop = asyncio.get_running_loop()
        conn = cls(ClientProtocol(token=token, max_frame_size=max_frame_size), loop)
        welcome: asyncio.Future[bytes] = loop.create_future()
        conn._pending[0] = welcome
        try:
            async with asyncio.timeout(connect_timeout):
                await loop.create_connection(
                    lambda: conn, host, port, ssl=tls, server_hostname=host if tls else None
                )
                assert conn._transport is not None
                conn._transport.write(conn._proto.hello())
                await welcome
        except TimeoutError as exc:
            conn._abort()
            raise ConnectTimeout(f"connecting to {host}:{port} timed out") from exc
        except ClosedError as exc:
            conn._abort()
            raise ConnectError(f"the server closed the connection during the handshake: {exc}") \
                from exc
        except DualioError:
            conn._abort()
            raise
        except (OSError, ssl.SSLError) as exc:
            conn._abort()
            raise ConnectError(f"cannot connect to {host}:{port}: {exc}") from exc
        except BaseException:
            conn._abort()
            raise
        finally:
            conn._pending.pop(0, None)
        return conn

    # -- protocol callbacks ---------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        try:
            failure = self._dispatch(self._proto.receive(data))
        except ProtocolError as exc:
            failure = exc
        if failure is not None:
            self._fail(failure)
            self._abort()

    def connection_lost(self, exc: Exception | None) -> None:
        reason = f"the connection broke: {exc}" if exc else "the server closed the connection"
        self._fail(ClosedError(reason))
        if not self._lost.done():
            self._lost.set_result(None)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def _dispatch(self, frames: list[Frame]) -> DualioError | None:
        pending = self._pending
        for frame in frames:
            kind, rid = frame.kind, frame.id
            waiter = pending.get(rid)
            if rid == 0:
                ending = connection_ending(frame)
                if ending is not None:
                    return ending
                if isinstance(waiter, asyncio.Future) and not waiter.done():
                    waiter.set_result(b"")
                continue
            if waiter is None:
                continue
            if isinstance(waiter, _Stream):
                if kind is FrameKind.STREAM_ITEM:
                    waiter.items.append(frame.payload)
                else:
                    del pending[rid]
                    waiter.done = True
                    if kind is FrameKind.ERROR:
                        waiter.error = decode_error(frame.payload)
                waiter.wake()
                continue
            if kind is FrameKind.STREAM_ITEM:
                continue
            del pending[rid]
            if waiter.done():
                continue
            if kind is FrameKind.ERROR:
                waiter.set_exception(decode_error(frame.payload))
            else:
                waiter.set_result(frame.payload)
        return None

    def _fail(self, failure: DualioError) -> None:
        if self._failure is None:
            self._failure = failure
        for waiter in self._pending.values():
            if isinstance(waiter, _Stream):
                waiter.done = True
                waiter.error = waiter.error or failure
                waiter.wake()
            elif not waiter.done():
                waiter.set_exception(failure)
        self._pending.clear()
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def _abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    # -- calls --------------------------------------------------------------------

    async def call(self, op: methods.Call[T], timeout: float | None) -> T:
        return op.decode(await self._roundtrip(op.method, op.args, timeout))

    async def ping(self, timeout: float | None) -> float:
        started = time.perf_counter()
        await self._roundtrip(None, b"", timeout)
        return time.perf_counter() - started

    def _send(self, method: str | None, args: bytes) -> int:
        """Queue the request frame whole; returns its id."""
        if self._failure is not None:
            raise ClosedError(f"the connection is closed: {self._failure}") from self._failure
        if self._closed or self._transport is None:
            raise ClosedError("the connection is closed")
        rid, data = self._proto.ping() if method is None else self._proto.request(method, args)
        self._write(data)
        return rid

    def _write(self, data: bytes) -> None:
        """Queue a whole frame; frames queued in one loop iteration go out in one write."""
        if not self._outbox:
            self._loop.call_soon(self._flush)
        self._outbox.append(data)

    def _flush(self) -> None:
        if self._transport is not None and self._outbox and not self._transport.is_closing():
            self._transport.write(b"".join(self._outbox))
        self._outbox.clear()

    async def _roundtrip(self, method: str | None, args: bytes, timeout: float | None) -> bytes:
        future: asyncio.Future[bytes] = self._loop.create_future()
        timer = None if timeout is None else self._loop.call_at(
            self._loop.time() + timeout, _expire, future, "the call timed out"
        )
        rid = 0
        try:
            if self._paused:  # backpressure: wait for the socket to drain, within the timeout
                await self._drain(future)
            rid = self._send(method, args)
            self._pending[rid] = future
            return await future
        except BaseException:
            if rid:
                self._abandon(rid)
            raise
        finally:
            if timer is not None:
                timer.cancel()

    async def _drain(self, future: asyncio.Future[bytes]) -> None:
        """Return when writing may resume; raises what ends ``future`` first (its timeout)."""
        while self._paused and not future.done():
            if self._drained is None or self._drained.done():
                self._drained = self._loop.create_future()
            await asyncio.wait((self._drained, future), return_when=asyncio.FIRST_COMPLETED)
        if future.done():
            future.result()

    def _abandon(self, rid: int) -> None:
        self._pending.pop(rid, None)
        if self._failure is None and not self._closed and self._transport is not None:
            cancel = self._proto.abandon(rid)
            if cancel:
                self._write(cancel)

    async def stream(self, op: methods.StreamCall[T], timeout: float | None) -> AsyncIterator[T]:
        state = _Stream()
        rid = self._send(op.method, op.args)
        self._pending[rid] = state
        try:
            while True:
                while state.items:
                    yield op.decode_item(state.items.popleft())
                if state.done:
                    if state.error is not None:
                        raise state.error
                    return
                waiter = state.waiter = self._loop.create_future()
                timer = None if timeout is None else self._loop.call_at(
                    self._loop.time() + timeout, _expire, waiter, f"no stream item within {timeout}s"
                )
                try:
                    await waiter
                finally:
                    if timer is not None:
                        timer.cancel()
        finally:
            if not state.done:
                self._abandon(rid)

    # -- closing ----------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed or self._failure is not None

    @property
    def dropped(self) -> int:
        return self._proto.dropped

    async def aclose(self) -> None:
        """Say goodbye, fail waiting calls with ClosedError, wait for the socket to close."""
        if self._closed:
            return
        self._closed = True
        transport = self._transport
        if transport is not None and self._failure is None:
            self._write(self._proto.close())
            self._flush()
        self._fail(ClosedError("the connection was closed"))
        if transport is not None:
            transport.close()
            try:
                await asyncio.wait_for(asyncio.shield(self._lost), _CLOSE_GRACE)
            except TimeoutError:
                transport.abort()
