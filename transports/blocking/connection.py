"""The blocking socket transport: one TCP (or TLS) connection, many calls in flight.

No thread of its own is needed: a thread waiting for an answer takes the
*reader role*, reads whatever arrives and hands each frame to the call it
belongs to, then passes the role on (leader/follower). So a program with one
thread per connection runs exactly one thread per connection.

Callback-style calls (``submit``) are answered by ``callback(result=...)`` or
``callback(error=...)``; someone must read while nobody waits, so the first
``submit`` starts one reader thread for the connection, joined by ``close()``.

The socket is non-blocking and every wait is a ``select`` with the caller's own
deadline, so no call outlives its timeout.
"""

from __future__ import annotations

import logging
import select
import selectors
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from typing import Any, TypeVar

from transports.wire import methods
from transports.wire.client_protocol import ClientProtocol, connection_ending, decode_error
from transports.wire.errors import (
    CallCancelled,
    ClosedError,
    ConnectError,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    ProtocolError,
)
from transports.wire.frames import DEFAULT_MAX_FRAME_SIZE, Frame, FrameKind

T = TypeVar("T")
Callback = Callable[..., None]
"""Called once as ``callback(result=value)`` or ``callback(error=exception)``."""

log = logging.getLogger("dualio.transport")
_RECV_SIZE = 256 * 1024
_CLOSE_GRACE = 1.0
_PROMPT_CANCEL_SLICE = 0.05


class _Pending:
    """One call waiting for the server: its answer, stream items, or callbacks."""

    __slots__ = ("callback", "done", "error", "items", "on_item", "result")

    def __init__(
        self, callback: Callback | None = None, on_item: Callable[[bytes], None] | None = None
    ) -> None:
        self.done = False
        self.result: bytes | None = None
        self.error: DualioError | None = None
        self.items: deque[bytes] = deque()
        self.callback = callback
        self.on_item = on_item


class CallHandle:
    """Lets another thread abandon a blocking call, e.g. when its awaiter is cancelled.

    The waiting thread then returns promptly with CallCancelled instead of
    holding its worker until the answer or the timeout.
    """

    __slots__ = ("_cancelled", "_conn", "_lock", "_rid")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: BlockingConnection | None = None
        self._rid = 0
        self._cancelled = False

    def bind(self, conn: BlockingConnection, rid: int) -> bool:
        conn.enable_prompt_cancel()
        with self._lock:
            if self._cancelled:
                return False
            self._conn, self._rid = conn, rid
            return True

    def release(self) -> None:
        """The call is over: a later ``cancel`` must not touch its (reusable) id."""
        with self._lock:
            self._conn = None

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.cancel(self._rid)


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


class BlockingConnection:
    """A connected, handshaken client connection. Thread-safe."""

    def __init__(self, sock: socket.socket, protocol: ClientProtocol) -> None:
        sock.setblocking(False)
        self._sock = sock
        self._proto = protocol
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        # OpenSSL objects must not read and write at once; plain sockets may.
        self._io_lock: threading.Lock | nullcontext[None] = (
            threading.Lock() if isinstance(sock, ssl.SSLSocket) else nullcontext()
        )
        self._pending: dict[int, _Pending] = {}
        self._reading = False
        self._sleepers = 0  # threads in self._cond.wait()
        self._reader: threading.Thread | None = None
        self._failure: DualioError | None = None
        self._closed = False
        self._read_poll = select.poll()
        self._read_poll.register(sock, select.POLLIN)
        self._control: list[bytes] = []  # CANCEL frames waiting for the write lock
        self._poll_slice: float | None = None  # see enable_prompt_cancel
        self._write_poll = select.poll()
        self._write_poll.register(sock, select.POLLOUT)

    # -- opening ------------------------------------------------------------

    @classmethod
    def connect(
        cls,
        host: str,
        port: int,
        *,
        connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None,
        server_hostname: str | None = None,
        token: str | None = None,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    ) -> BlockingConnection:
        protocol = ClientProtocol(token=token, max_frame_size=max_frame_size)
        deadline = _deadline(connect_timeout)
        try:
            sock = socket.create_connection((host, port), timeout=connect_timeout)
        except TimeoutError as exc:
            raise ConnectTimeout(f"connecting to {host}:{port} timed out") from exc
        except OSError as exc:
            raise ConnectError(f"cannot connect to {host}:{port}: {exc}") from exc
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if tls is not None:
                remaining = _remaining(deadline)
                if remaining is not None and remaining <= 0:
                    raise TimeoutError
                sock.settimeout(remaining)
                sock = tls.wrap_socket(sock, server_hostname=server_hostname or host)
        except TimeoutError as exc:
            sock.close()
            raise ConnectTimeout(f"TLS handshake with {host}:{port} timed out") from exc
        except OSError as exc:
            sock.close()
            raise ConnectError(f"TLS handshake with {host}:{port} failed: {exc}") from exc
        conn = cls(sock, protocol)
        try:
            conn._handshake(deadline)
        except BaseException:
            conn._shutdown()
            raise
        return conn

    def _handshake(self, deadline: float | None) -> None:
        pending = _Pending()
        with self._cond:
            self._pending[0] = pending
        try:
            self._send(self._proto.hello(), deadline)
            self._wait(pending, deadline, want_item=False)
        except DualioTimeout as exc:
            raise ConnectTimeout("the server did not answer the handshake in time") from exc
        except ClosedError as exc:
            raise ConnectError(f"the server closed the connection during the handshake: {exc}") \
                from exc
        finally:
            with self._cond:
                self._pending.pop(0, None)
        if isinstance(pending.error, ClosedError):
            raise ConnectError(f"the server closed the connection during the handshake: "
                               f"{pending.error}") from pending.error
        if isinstance(pending.error, ConnectError):
            raise pending.error
        if pending.error is not None:
            raise ConnectError(f"handshake failed: {pending.error}") from pending.error

    # -- calls ----------------------------------------------------------------

    def call(
        self, op: methods.Call[T], timeout: float | None, handle: CallHandle | None = None
    ) -> T:
        """Send one request and wait for its answer."""
        deadline = _deadline(timeout)
        pending = _Pending()
        rid = self._start(op.method, op.args, pending, deadline, handle)
        try:
            self._await(rid, pending, deadline)
        finally:
            if handle is not None:
                handle.release()
        assert pending.result is not None
        return op.decode(pending.result)

    def ping(self, timeout: float | None, handle: CallHandle | None = None) -> float:
        """Round-trip time of a PING, in seconds."""
        deadline = _deadline(timeout)
        pending = _Pending()
        started = time.perf_counter()
        rid = self._start(None, b"", pending, deadline, handle)
        try:
            self._await(rid, pending, deadline)
        finally:
            if handle is not None:
                handle.release()
        return time.perf_counter() - started

    def stream(
        self, op: methods.StreamCall[T], timeout: float | None, handle: CallHandle | None = None
    ) -> Iterator[T]:
        """Items of a stream as they arrive; ``timeout`` bounds the wait for each item.

        Leaving the loop early cancels the stream on the server.
        """
        pending = _Pending()
        rid = self._start(op.method, op.args, pending, _deadline(timeout), handle)
        try:
            while True:
                deadline = _deadline(timeout)
                try:
                    self._wait(pending, deadline, want_item=True)
                except DualioTimeout:
                    raise DualioTimeout(f"no stream item within {timeout}s") from None
                while pending.items:
                    yield op.decode_item(pending.items.popleft())
                if pending.done and not pending.items:
                    if pending.error is not None:
                        raise pending.error
                    return
        finally:
            if handle is not None:
                handle.release()
            if not pending.done:
                self.cancel(rid)

    def submit(
        self, op: methods.Call[Any], callback: Callback, handle: CallHandle | None = None
    ) -> int:
        """Send a request; ``callback`` is called from the reader thread when it completes.

        Returns the request id, for ``cancel``.
        """

        def complete(result: bytes | None = None, error: DualioError | None = None) -> None:
            if error is not None:
                callback(error=error)
                return
            assert result is not None
            try:
                value = op.decode(result)
            except DualioError as exc:
                callback(error=exc)
            else:
                callback(result=value)

        pending = _Pending(callback=complete)
        rid = self._start(op.method, op.args, pending, None, handle)
        self._ensure_reader()
        return rid

    def submit_stream(
        self, op: methods.StreamCall[Any], on_item: Callable[[Any], None], callback: Callback,
        handle: CallHandle | None = None,
    ) -> int:
        """Like ``submit``; each stream item is pushed to ``on_item`` first."""

        def item(payload: bytes) -> None:
            on_item(op.decode_item(payload))

        pending = _Pending(callback=callback, on_item=item)
        rid = self._start(op.method, op.args, pending, None, handle)
        self._ensure_reader()
        return rid

    def cancel(self, rid: int) -> None:
        """Stop waiting for ``rid``: whoever waits gets CallCancelled, its late answer
        is dropped, and the server is told."""
        callbacks: list[Callable[[], None]] = []
        with self._cond:
            pending = self._pending.pop(rid, None)
            if pending is not None and not pending.done:
                self._finish(pending, callbacks, error=CallCancelled("the call was cancelled"))
                self._wake_waiters()
            data = self._proto.abandon(rid) if self._failure is None else b""
            if data:
                self._control.append(data)
        _run_all(callbacks)
        if data:
            self._flush_control()

    def _start(
        self, method: str | None, args: bytes, pending: _Pending, deadline: float | None,
        handle: CallHandle | None = None,
    ) -> int:
        """Register ``pending`` and send its request (a PING when ``method`` is None)."""
        with self._cond:
            self._check_open()
            rid, data = self._proto.ping() if method is None else self._proto.request(method, args)
            self._pending[rid] = pending
        if handle is not None and not handle.bind(self, rid):
            with self._cond:
                self._pending.pop(rid, None)
                self._proto.release(rid)
            raise CallCancelled("the call was cancelled before it was sent")
        self._send_or_release(rid, data, deadline)
        return rid

    def _send_or_release(self, rid: int, data: bytes, deadline: float | None) -> None:
        try:
            self._send(data, deadline)
        except BaseException:
            with self._cond:
                self._pending.pop(rid, None)
                self._proto.release(rid)
            raise

    def _await(self, rid: int, pending: _Pending, deadline: float | None) -> None:
        try:
            self._wait(pending, deadline, want_item=False)
        except BaseException:
            self.cancel(rid)
            raise
        if pending.error is not None:
            raise pending.error

    def _check_open(self) -> None:
        if self._failure is not None:
            raise ClosedError(f"the connection is closed: {self._failure}") from self._failure
        if self._closed:
            raise ClosedError("the connection is closed")

    # -- waiting and reading -----------------------------------------------

    def _wait(self, pending: _Pending, deadline: float | None, want_item: bool) -> None:
        """Return once ``pending`` is done (or has an item); read while nobody else does."""
        while True:
            with self._cond:
                while True:
                    if pending.done or (want_item and pending.items):
                        return
                    remaining = _remaining(deadline)
                    if remaining is not None and remaining <= 0:
                        raise DualioTimeout("the call timed out")
                    if not self._reading:
                        self._reading = True
                        break
                    self._sleepers += 1
                    try:
                        self._cond.wait(remaining)
                    finally:
                        self._sleepers -= 1
            self._read_once(remaining)

    def _read_once(self, timeout: float | None) -> bool:
        """Read what arrives within ``timeout`` and dispatch it. Holds the reader role."""
        frames: list[Frame] = []
        failure: DualioError | None = None
        try:
            data = self._recv(timeout)
            if data == b"":
                failure = ClosedError("the server closed the connection")
            elif data is not None:
                frames = self._proto.receive(data)
        except ProtocolError as exc:
            failure = exc
        except OSError as exc:
            failure = ClosedError(f"the connection broke: {exc}")
        callbacks: list[Callable[[], None]] = []
        with self._cond:
            if frames:
                failure = self._dispatch(frames, callbacks) or failure
            if failure is not None:
                self._fail(failure, callbacks)
            if not callbacks:
                self._reading = False
            self._wake_waiters()
        if callbacks:
            # Still holding the reader role, so callbacks run one at a time, in frame order.
            _run_all(callbacks)
            with self._cond:
                self._reading = False
                self._wake_waiters()
        return failure is None

    def _dispatch(self, frames: list[Frame], callbacks: list[Callable[[], None]]) -> DualioError | None:
        for frame in frames:
            kind, rid = frame.kind, frame.id
            if rid == 0:
                ending = connection_ending(frame)
                if ending is not None:
                    return ending  # _fail hands it to every pending call, the handshake's too
                if (pending := self._pending.pop(0, None)) is not None:
                    self._finish(pending, callbacks, result=b"")
                continue
            pending = self._pending.get(rid)
            if pending is None:
                continue  # abandoned after the protocol let the frame through
            if kind is FrameKind.STREAM_ITEM:
                if pending.on_item is not None:
                    callbacks.append(_bind_item(pending.on_item, frame.payload))
                else:
                    pending.items.append(frame.payload)
                continue
            del self._pending[rid]
            if kind is FrameKind.ERROR:
                self._finish(pending, callbacks, error=decode_error(frame.payload))
            else:
                self._finish(pending, callbacks, result=frame.payload)
        return None

    @staticmethod
    def _finish(
        pending: _Pending, callbacks: list[Callable[[], None]],
        result: bytes | None = None, error: DualioError | None = None,
    ) -> None:
        pending.done = True
        pending.result = result
        pending.error = error
        if pending.callback is not None:
            callback = pending.callback
            if error is not None:
                callbacks.append(lambda: callback(error=error))
            else:
                callbacks.append(lambda: callback(result=result))

    def _fail(self, failure: DualioError, callbacks: list[Callable[[], None]]) -> None:
        """The connection is unusable: every waiting call gets ``failure``."""
        if self._failure is None:
            self._failure = failure
        for pending in self._pending.values():
            self._finish(pending, callbacks, error=failure)
        self._pending.clear()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def enable_prompt_cancel(self) -> None:
        """A thread holding the reader role looks up every 50 ms, so a call cancelled
        from another thread returns promptly even if the server never answers it.
        Used by the async adapter, whose cancelled workers must not stay busy; plain
        sync use never pays for the extra wake-ups."""
        self._poll_slice = _PROMPT_CANCEL_SLICE

    def _wake_waiters(self) -> None:
        """notify_all, skipped when no thread waits (the single-thread hot path). Holds _cond."""
        if self._sleepers:
            self._cond.notify_all()

    def _ensure_reader(self) -> None:
        with self._cond:
            if self._reader is not None or self._failure is not None:
                return
            self._reader = threading.Thread(
                target=self._reader_loop, name="dualio-reader", daemon=True
            )
            self._reader.start()

    def _reader_loop(self) -> None:
        while True:
            with self._cond:
                while self._reading and self._failure is None:
                    self._sleepers += 1
                    try:
                        self._cond.wait()
                    finally:
                        self._sleepers -= 1
                if self._failure is not None:
                    return
                self._reading = True
            if not self._read_once(None):
                return

    # -- socket I/O ---------------------------------------------------------

    def _wait_io(self, event: int, deadline: float | None, poller: select.poll | None) -> bool:
        """Wait until the socket is ready for ``event``; False when the deadline passes."""
        remaining = _remaining(deadline)
        if remaining is not None and remaining <= 0:
            return False
        if poller is None:  # TLS wanting the other direction: rare, so not cached
            with selectors.DefaultSelector() as sel:
                sel.register(self._sock, event)
                return bool(sel.select(remaining))
        return bool(poller.poll(None if remaining is None else max(1, int(remaining * 1000) + 1)))

    def _recv(self, timeout: float | None) -> bytes | None:
        """Bytes received, ``b""`` at end of stream, None if nothing came in time."""
        if self._poll_slice is not None and (timeout is None or timeout > self._poll_slice):
            timeout = self._poll_slice
        deadline = _deadline(timeout)
        while True:
            try:
                with self._io_lock:
                    return self._sock.recv(_RECV_SIZE)
            except (BlockingIOError, ssl.SSLWantReadError):
                ready = self._wait_io(selectors.EVENT_READ, deadline, self._read_poll)
            except ssl.SSLWantWriteError:
                ready = self._wait_io(selectors.EVENT_WRITE, deadline, None)
            if not ready:
                return None

    def _send(self, data: bytes, deadline: float | None) -> None:
        """Write one whole frame (then any queued CANCELs), or fail the connection."""
        if not self._write_lock.acquire(blocking=False):
            remaining = _remaining(deadline)
            if not self._write_lock.acquire(timeout=-1 if remaining is None else max(remaining, 0)):
                raise DualioTimeout("timed out waiting to write the request")
        try:
            self._write_locked(data, deadline)
            self._write_control_locked()
        finally:
            self._write_lock.release()

    def _flush_control(self) -> None:
        """Write queued CANCEL frames now if nobody is writing; else the writer will.

        Never waits for the write lock, so cancelling from an event loop cannot stall it.
        """
        if self._write_lock.acquire(blocking=False):
            try:
                self._write_control_locked()
            finally:
                self._write_lock.release()

    def _write_control_locked(self) -> None:
        if not self._control:
            return
        with self._cond:
            frames, self._control = self._control, []
        try:
            self._write_locked(b"".join(frames), _deadline(_CLOSE_GRACE))
        except DualioError:
            pass  # the connection is failed already; a CANCEL is only advice

    def _write_locked(self, data: bytes, deadline: float | None) -> None:
        """Write ``data`` whole under the write lock; on a stall mid-frame, fail the connection."""
        view: bytes | memoryview = data
        while view:
            try:
                with self._io_lock:
                    sent = self._sock.send(view)
                if sent == len(view):
                    break
                view = memoryview(view)[sent:]
                continue
            except (BlockingIOError, ssl.SSLWantWriteError):
                ready = self._wait_io(selectors.EVENT_WRITE, deadline, self._write_poll)
            except ssl.SSLWantReadError:
                ready = self._wait_io(selectors.EVENT_READ, deadline, None)
            except OSError as exc:
                self._broken(ClosedError(f"the connection broke: {exc}"))
                raise self._failure or ClosedError("the connection broke") from exc
            if not ready:
                if len(view) < len(data):
                    # Half a frame is on the wire: the connection cannot be used again.
                    self._broken(DualioTimeout("timed out in the middle of writing a frame"))
                raise DualioTimeout("timed out writing the request")

    def _broken(self, failure: DualioError) -> None:
        callbacks: list[Callable[[], None]] = []
        with self._cond:
            self._fail(failure, callbacks)
            self._wake_waiters()
        _run_all(callbacks)

    # -- closing --------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed or self._failure is not None

    @property
    def in_flight(self) -> int:
        return self._proto.in_flight

    @property
    def dropped(self) -> int:
        """Frames that arrived for calls that had already given up."""
        return self._proto.dropped

    def close(self) -> None:
        """Say goodbye, fail what is still waiting with ClosedError, join the reader."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            goodbye = self._proto.close() if self._failure is None else b""
        if goodbye:
            try:
                self._send(goodbye, _deadline(_CLOSE_GRACE))
            except DualioError:
                pass
        self._broken(ClosedError("the connection was closed"))
        self._shutdown()

    def _shutdown(self) -> None:
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join()
        self._sock.close()


def _run_all(callbacks: list[Callable[[], None]]) -> None:
    """Run completion callbacks; one that raises is logged and never stops the others."""
    for run in callbacks:
        try:
            run()
        except Exception:
            log.exception("a completion callback raised")


def _bind_item(on_item: Callable[[bytes], None], payload: bytes) -> Callable[[], None]:
    return lambda: on_item(payload)
