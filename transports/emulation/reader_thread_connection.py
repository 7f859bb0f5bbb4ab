"""The blocking transport with callback-style calls, for the emulation.

A callback-style call (``submit``) is answered by ``callback(result=...)`` or
``callback(error=...)``, and a stream opened for an event loop (``open_stream``)
tells of its news with ``on_news()``; someone must read while no thread waits
for an answer, so the first of them starts one reader thread for the connection,
which takes the reader role whenever nobody else holds it, and which ``close()``
joins. Callbacks run on whichever thread holds the reader role, in frame order.

A reader here looks up every 50 ms (``PROMPT_CANCEL_SLICE``), so a call abandoned
from the loop (:class:`dualio_transports.emulation.call_handle.CallHandle`) frees its
worker promptly even if the server never answers it; the blocking face never
pays for those wake-ups.
"""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Callable
from threading import get_ident
from time import monotonic
from typing import Any

from dualio_transports.blocking.connection import BlockingConnection, Handle, LiveCall
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.wire import failures, procedure
from dualio_transports.wire.deadline import NO_DEADLINE, ItemDeadlines
from dualio_transports.wire.errors import DualioError
from dualio_transports.wire.protocol import CallKind
from dualio_transports.wire.request import Request, StreamRequest

Callback = Callable[..., None]
"""Called once as ``callback(result=value)`` or ``callback(error=exception)``."""
PROMPT_CANCEL_SLICE = 0.05


class _Completion:
    """How a callback-style call is told about its items and its end (its waiter)."""

    __slots__ = ("callback", "finished", "on_news")

    def __init__(self, callback: Callback, on_news: Callable[[], None] | None = None) -> None:
        self.callback = callback
        self.on_news = on_news
        self.finished = False


class ReaderThreadConnection(BlockingConnection):
    """A :class:`BlockingConnection` that also takes callback-style calls. Thread-safe."""

    def __init__(self, sock: socket.socket, options: ConnectOptions) -> None:
        super().__init__(sock, options)
        self._reader: threading.Thread | None = None
        self._poll_slice = PROMPT_CANCEL_SLICE

    def submit(
        self, request: Request[Any], callback: Callback, handle: Handle | None = None,
        until: float = NO_DEADLINE, sent: list[int] | None = None,
    ) -> LiveCall:
        """Send a request (by ``until``); ``callback`` is called from the reader
        thread when it completes.

        Returns the call, for ``cancel``.
        """

        def complete(result: bytes | None = None, error: DualioError | None = None) -> None:
            if error is not None:
                callback(error=error)
                return
            assert result is not None
            try:
                value = request.decode(result)
            except Exception as exc:  # raised to the caller, as every transport raises its decoder's error
                callback(error=exc)
            else:
                callback(result=value)

        return self._open(request.kind, request, until, handle, _Completion(complete), sent)

    def open_stream(
        self, request: StreamRequest[Any], on_news: Callable[[], None], handle: Handle | None = None,
        deadlines: ItemDeadlines | None = None, sent: list[int] | None = None,
    ) -> LiveCall:
        """Send a stream's request (by its first item's deadline) for a consumer that is not a thread
        waiting here (an event loop). Its items stay in the call table, bounded by
        ``STREAM_BACKLOG`` as every stream's are, and are taken by :meth:`stream_items`;
        ``on_news()`` is called from the reader thread whenever the stream has a new item
        or has ended. Returns the call, for ``stream_items`` and ``cancel``."""

        def ended(**outcome: Any) -> None:
            on_news()

        deadlines = deadlines or ItemDeadlines(NO_DEADLINE, None)

        def expired() -> DualioError:
            return procedure.item_expired(deadlines)

        return self._open(
            CallKind.STREAM, request, deadlines.for_wait(monotonic()), handle, _Completion(ended, on_news),
            sent, expired,
        )

    def _open(
        self, kind: CallKind, request: Request[Any] | StreamRequest[Any], until: float,
        handle: Handle | None, completion: _Completion, sent: list[int] | None,
        expired: Callable[[], DualioError] = failures.call_timeout,
    ) -> LiveCall:
        if handle is not None and handle.cancelled:
            raise failures.cancelled_before_sent()
        answers = request.answers if isinstance(request, Request) else 1
        call = self._drive(procedure.open_handed_call(
            self._table, kind, request.method, request.args, until, monotonic(), sent, completion, expired,
            answers,
        ), handle)
        if call.done and not completion.finished:  # a request that expects no answer
            completion.finished = True
            completion.callback(result=call.result)
            return call
        self._ensure_reader()
        return call

    def _wake(self, call: LiveCall) -> None:
        """The table's wake, which also queues a callback-style call's callbacks."""
        BlockingConnection._wake(self, call)  # not super(): this runs once per answer
        completion = call.waiter
        if completion is None:
            return
        if completion.on_news is not None and call.items:
            self._ready.append(completion.on_news)
        if call.done and not completion.finished:
            completion.finished = True
            if call.error is not None:
                self._ready.append(functools.partial(completion.callback, error=call.error))
            else:
                self._ready.append(functools.partial(completion.callback, result=call.result))

    def has_pending_input(self) -> bool:
        """What the socket holds unread: the reader thread reads what comes as it comes
        (it holds the reader role for good, which says nothing here)."""
        return self._unread()

    def _ensure_reader(self) -> None:
        with self._mutex:
            if self._reader is not None or self._table.failure is not None:
                return
            self._reader = threading.Thread(
                target=self._reader_loop, name="dualio-reader", daemon=True
            )
            self._reader.start()

    def _reader_loop(self) -> None:
        while True:
            with self._mutex:  # a stream consumer that is behind holds this reader as any other
                while (self._reading or self._table.backlogged) and self._table.failure is None:
                    self._sleepers += 1
                    try:
                        self._cond.wait()
                    finally:
                        self._sleepers -= 1
                if self._table.failure is not None:
                    return
                self._reading = get_ident()
            if not self._read_once(self._table.wait_end(None, monotonic())):
                return
            now = monotonic()
            if self._table.keepalive_wait(now) == 0:
                self._drive(procedure.keepalive(self._table, now))

    def _shutdown(self) -> None:
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join()
        super()._shutdown()
