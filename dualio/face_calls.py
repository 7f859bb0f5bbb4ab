"""What every call of a face does around its transport, whatever the protocol: the one
deadline, retries, the user's hooks, the error of a stream cut short, and (re)connecting.

This file is the source of ``dualio_sync/face_calls.py``, which ``dualio/devtools/unasync.py``
generates from it (``async``/``await`` removed, async types replaced by their blocking
twins). Edit this file, then run ``python -m dualio.devtools.unasync``; the test command
fails when the two drift apart. A protocol's face subclasses :class:`AsyncCalls` and hands
its requests (:class:`~dualio_transports.wire.request.Request`) to ``_call`` and ``_stream``:
the service's methods (dualio/service_methods.py), Redis's commands (dualio/redis/commands.py).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import Any, Self, TypeVar

from dualio_transports.interface import AsyncTransport
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.policy.events import (
    CallFinished,
    CallStarted,
    RequestCallback,
    ResponseCallback,
    answer_size,
    log,
    notify,
)
from dualio_transports.policy.lifecycle import Lifecycle
from dualio_transports.policy.retry import RetryPolicy, may_retry
from dualio_transports.policy.timeouts import UNSET, Unset, check_timeout, pick_timeout
from dualio_transports.wire.deadline import NO_DEADLINE, deadline, passed
from dualio_transports.wire.errors import (
    CallCancelled,
    ConnectError,
    ConnectionLost,
    DualioError,
    OutcomeUnknown,
    RemoteError,
    StreamInterrupted,
    UsageError,
)
from dualio_transports.wire.failures import call_timeout
from dualio_transports.wire.request import PING, Request, StreamRequest

T = TypeVar("T")


def _named(error: DualioError, method: str, sent: list[int]) -> DualioError:
    """``error`` as this call raises it: naming its method and its request's id."""
    return error.for_call(method, sent[-1] if sent else None)


def _ended(error: DualioError, request: Request[Any], sent: list[int]) -> DualioError:
    """What a call that will not be tried again raises: ``error`` named (:func:`_named`);
    a connection lost after the request of a call unsafe to repeat was sent is
    :class:`OutcomeUnknown`, which says that it may or may not have run."""
    if sent and not _repeatable(request) and type(error) is ConnectionLost:
        unknown = OutcomeUnknown(f"{error}: {request.method} was sent, and whether it ran is unknown")
        unknown.__cause__ = error
        error = unknown
    return _named(error, request.method, sent)


def _repeatable(request: Request[Any]) -> bool:
    """Whether ``request`` may be sent again: running it twice is harmless, and an answer
    says it ran (a request that expects none is never sent twice)."""
    return request.idempotent and request.answers != 0


def _told(method: str, exc: BaseException) -> DualioError:
    """What the hooks hear of a call ended by ``exc``."""
    return exc if isinstance(exc, DualioError) else _stopped(method, exc)


def _stopped(method: str, exc: BaseException) -> DualioError:
    """What the hooks hear of a call ended by ``exc``, which is not a DualioError: a cancel
    or an interrupt is CallCancelled; any other exception, a DualioError naming it."""
    if isinstance(exc, Exception):
        return DualioError(f"the {method} call raised {type(exc).__name__}: {exc}")
    return CallCancelled(f"the {method} call was stopped: {type(exc).__name__}")


class AsyncCalls:
    """Calls and (re)connecting, for a face of any protocol; the face supplies its
    connection's primitives (its lock, a connect its close can stop, closing), the pause
    between tries, and its settings."""

    timeout: float | None
    retry: RetryPolicy | None
    on_request: RequestCallback | None
    on_response: ResponseCallback | None
    _call_numbers: itertools.count[int]  # the hooks' call numbers, from 1
    _conn: AsyncTransport | None
    _life: Lifecycle
    _options: ConnectOptions

    @property
    def closed(self) -> bool:
        """True once closed (or never opened), or when the connection has failed for good."""
        raise NotImplementedError

    def _ready_transport(self) -> AsyncTransport | None:
        """The open transport when it is usable as it is (the common case), else None."""
        raise NotImplementedError

    async def _reconnect(self, until: float) -> AsyncTransport:
        """An open transport, (re)connecting first if need be, by ``until`` at the latest.
        One caller connects at a time; the others wait for it and use what it made."""
        self._check_caller()
        if not await self._lock_reconnect(until):
            raise call_timeout()
        try:
            self._life.check_open()
            conn = self._kept_connection()
            if conn is not None:
                if self._life.keeps(conn, self.retry):
                    return conn
                self._conn = None
                await self._discard(conn)
            try:
                conn = await self._attempt(until)  # the transport applies connect_timeout
            except ConnectError as exc:
                self._life.connect_failed(exc)
                raise
            self._conn = conn  # before asking: close() closes it, or connected() sees the close
            if not self._life.connected():
                self._conn = None
                await self._discard(conn)
                raise self._life.closed_meanwhile()
            return conn
        finally:
            self._unlock_reconnect()

    def _check_caller(self) -> None:
        """UsageError when this caller may not use the client at all."""
        raise NotImplementedError

    async def _lock_reconnect(self, until: float) -> bool:
        """Take the reconnect lock by ``until``; False when that passed first."""
        raise NotImplementedError

    def _unlock_reconnect(self) -> None:
        raise NotImplementedError

    def _kept_connection(self) -> AsyncTransport | None:
        """The connection a reconnect starts from (None: there is none to keep)."""
        raise NotImplementedError

    async def _attempt(self, until: float) -> AsyncTransport:
        """One connect by ``until``, which the client's close stops."""
        raise NotImplementedError

    async def _discard(self, conn: AsyncTransport) -> None:
        """Close a connection that is no longer the client's, whatever happens to the caller."""
        raise NotImplementedError

    async def locate_server(self, options: ConnectOptions, until: float) -> ConnectOptions:
        """Where the face's next connection goes, asked before each connect: ``options``,
        the face's own, unless a face whose server moves says otherwise (Redis with
        ``sentinels=`` asks its sentinels where the primary is now). ``until`` is the
        deadline of the call that connects, a ``time.monotonic()`` instant (``math.inf``:
        none), which the connect itself counts against too. A ConnectError raised here is
        a failed connect: the call waits and tries again as ``retry`` allows."""
        return options

    async def _pause(self, seconds: float) -> None:
        raise NotImplementedError

    async def ping(self, *, timeout: float | Unset | None = UNSET) -> float:
        """Seconds until the wire's keepalive probe (:data:`PING`, a request as any other)
        was answered, retried as an idempotent call (a reconnect before it counts)."""
        until = deadline(pick_timeout(timeout, self.timeout))
        started = time.perf_counter()
        await self._attempts(PING, until)
        return time.perf_counter() - started

    def has_pending_input(self) -> bool:
        """Whether bytes the face has not read yet may wait on its connection (True when
        it cannot tell, or no connection is open): what a client-side cache asks before
        it answers from memory."""
        conn = self._ready_transport()
        return conn is None or conn.has_pending_input()

    def dedicated(self, timeout: float | Unset | None = UNSET) -> AsyncDedicated:
        """A connection of this face's own for one ``async with`` block (state kept on the
        server between requests, such as a watch), from the set of :attr:`held_connections`;
        ``timeout`` (by default the face's) bounds taking it and each of its requests."""
        return AsyncDedicated(self, timeout)

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds`` as this face waits (on its loop; a blocking face's thread sleeps)."""
        await self._pause(seconds)

    async def request(
        self, request: Request[T], timeout: float | Unset | None = UNSET, held: bool = False,
    ) -> T:
        """Send ``request`` and return its decoded answer, within ``timeout`` seconds (by
        default the face's ``timeout``; None: no limit). A lost connection is opened
        again, and a request that is ``idempotent`` is sent again, as ``retry`` allows.
        ``held=True``: a request the server may hold for long (BLPOP), on a connection of
        its own (:attr:`held_connections`), so it holds up no other call."""
        if held:
            return await self._held_call(request, deadline(pick_timeout(timeout, self.timeout)))
        seconds = self.timeout if timeout is UNSET else check_timeout("timeout", timeout)
        until = NO_DEADLINE if seconds is None else time.monotonic() + seconds  # deadline(), written out
        if self.on_request is not None or self.on_response is not None:
            return await self._attempts(request, until)
        sent: list[int] = []
        try:
            transport = self._ready_transport()
            if transport is None:
                transport = await self._reconnect(until)
                if passed(until):  # connecting took all of it: nothing is sent
                    raise call_timeout()
            return await transport.call(request, until, sent)
        except DualioError as exc:
            if self.retry is None or not may_retry(exc, _repeatable(request)):
                raise _ended(exc, request, sent)  # noqa: B904  (a copy: its cause is the original's)
            return await self._attempts(request, until, exc)

    async def _attempts(
        self, request: Request[T], until: float, error: DualioError | None = None,
    ) -> T:
        """Send ``request`` by ``until`` (after a first try that failed with ``error``, if given), and again
        while the retry policy allows and it is safe; tell the user's hooks before each
        try and after the last."""
        started = time.perf_counter()
        number = next(self._call_numbers)
        on_request, on_response = self.on_request, self.on_response  # the hooks it began with
        series = None
        tries = 0 if error is None else 1
        sent: list[int] = []  # the id of the current try's request, once it is written
        try:
            while True:
                if error is not None:
                    try:
                        if self.retry is None or not may_retry(error, _repeatable(request)):
                            raise error
                        series = series or self.retry.series()
                        wait = series.next_delay(error, until)
                    except DualioError as exc:
                        final = _ended(exc, request, sent)
                        if on_response is not None:
                            elapsed = time.perf_counter() - started
                            failed = CallFinished(
                                request.method, len(request.args), 0, elapsed, tries, final, final.request_id,
                            number,
                            )
                            notify(on_response, failed)
                        raise final  # noqa: B904
                    log.debug("retrying %s in %.3fs after %s: %s",
                              request.method, wait, type(error).__name__, error)
                    await self._pause(wait)
                tries += 1
                sent.clear()
                if on_request is not None:
                    notify(on_request, CallStarted(request.method, len(request.args), tries, number))
                try:
                    transport = self._ready_transport() or await self._reconnect(until)
                    if passed(until):  # connecting or pausing took all of it: nothing is sent
                        raise call_timeout()
                    result = await transport.call(request, until, sent)
                    break
                except DualioError as exc:
                    error = exc
        except DualioError:
            raise  # the hooks heard of it
        except BaseException as exc:  # cancelled, interrupted, or a fault: the hooks hear of it too
            if on_response is not None:
                stopped = _stopped(request.method, exc)
                elapsed = time.perf_counter() - started
                rid = sent[-1] if sent else None
                notify(on_response,
                       CallFinished(request.method, len(request.args), 0, elapsed, tries, stopped, rid,
                                    number))
            raise
        if on_response is not None:
            elapsed = time.perf_counter() - started
            size = answer_size(result)
            rid = sent[-1] if sent else None
            notify(on_response,
                   CallFinished(request.method, len(request.args), size, elapsed, tries, None, rid, number))
        return result

    async def stream(
        self, request: StreamRequest[T], timeout: float | Unset | None = UNSET,
        item_timeout: float | Unset | None = UNSET,
    ) -> AsyncGenerator[T, None]:
        """The stream's items; the hooks hear of each try before it starts and of the
        stream once when it ends (all items taken, the consumer left early, or an error).
        The first item's deadline is the stream's own, made as its iteration begins, so
        reconnecting counts against it; each later item is due within ``item_timeout``
        (by default ``timeout``, itself by default the face's). A try whose request never
        left (the connection was found closed) is made again on a new connection, as the
        retry policy allows."""
        timeout = pick_timeout(timeout, self.timeout)
        until = deadline(timeout)
        each = timeout if item_timeout is UNSET else item_timeout
        sent: list[int] = []
        started = time.perf_counter()
        delivered = received = tries = 0
        final: DualioError | None = None
        series = None
        number = next(self._call_numbers)
        on_request, on_response = self.on_request, self.on_response
        try:
            while True:
                tries += 1
                if on_request is not None:
                    notify(on_request, CallStarted(request.method, len(request.args), tries, number))
                try:
                    transport = self._ready_transport() or await self._reconnect(until)
                    items = transport.stream(request, until, each, sent=sent)
                except DualioError as exc:
                    final = _named(exc, request.method, sent)
                    raise final  # noqa: B904
                try:
                    async for item in items:
                        delivered += 1
                        if on_response is not None:  # only the hook reads the sizes
                            received += answer_size(item)
                        yield item
                    return
                except DualioError as exc:
                    # its request never left (a ConnectionLost may have been a write cut short)
                    if not delivered and not sent and self.retry is not None and may_retry(exc, False):
                        try:
                            series = series or self.retry.series()
                            wait = series.next_delay(exc, until)
                        except DualioError as exhausted:
                            final = _named(exhausted, request.method, sent)
                            raise final  # noqa: B904
                        log.debug("retrying %s in %.3fs after %s: %s",
                                  request.method, wait, type(exc).__name__, exc)
                        await self._pause(wait)
                        continue
                    if isinstance(exc, ConnectionLost):
                        interrupted = StreamInterrupted(
                            f"the {request.method} stream broke after {delivered} items: {exc}", delivered
                        )
                        final = _named(interrupted, request.method, sent)
                        raise final from exc
                    final = _named(exc, request.method, sent)
                    raise final  # noqa: B904
                finally:
                    await items.aclose()
        except GeneratorExit:
            raise  # the consumer left early: the stream ended, nothing failed
        except BaseException as exc:
            if final is None and not isinstance(exc, DualioError):
                final = _stopped(request.method, exc)
            raise
        finally:
            if on_response is not None:
                rid = sent[-1] if sent else None
                elapsed = time.perf_counter() - started
                size = len(request.args)
                ended = CallFinished(request.method, size, received, elapsed, tries, final, rid, number)
                notify(on_response, ended)

    # -- commands the server holds, each on a connection of its own -----------------

    async def _held_call(self, request: Request[T], until: float) -> T:
        """A command the server holds (``BLPOP``), on a connection of its own from the
        face's bounded set (:meth:`_take_held_slot`), so it holds up no other call. The
        connection goes back to the set after an answer (an error answer included); a
        call given up or failed closes it, so the server hands nothing to a caller that
        left. A connection found closed before the request left is replaced once."""
        self._check_caller()
        started = time.perf_counter()
        number = next(self._call_numbers)
        on_request, on_response = self.on_request, self.on_response
        if on_request is not None:
            notify(on_request, CallStarted(request.method, len(request.args), 1, number))
        sent: list[int] = []
        final: BaseException | None = None
        try:
            if not await self._take_held_slot(until):
                raise call_timeout()
            try:
                idle = self._idle_held()
                try:
                    return await self._held_try(idle or await self._open_held_by(until), request, until, sent)
                except DualioError as exc:
                    if idle is None or sent or not may_retry(exc, False):
                        raise
                return await self._held_try(await self._open_held_by(until), request, until, sent)
            finally:
                self._give_held_slot()
        except DualioError as exc:
            final = _ended(exc, request, sent)
            raise final  # noqa: B904
        except BaseException as exc:
            final = exc
            raise
        finally:
            if on_response is not None:
                error = None if final is None else _told(request.method, final)
                elapsed = time.perf_counter() - started
                rid = sent[-1] if sent else None
                notify(on_response,
                       CallFinished(request.method, len(request.args), 0, elapsed, 1, error, rid, number))

    async def _open_held_by(self, until: float) -> AsyncTransport:
        """A new connection for held commands by ``until``: a connect that fails is tried
        again as the retry policy allows, after its pause, as every other call's is (a
        caller looping on BLPOP does not hammer a server that refuses connections)."""
        series = None
        while True:
            try:
                return await self._open_held(until)
            except DualioError as exc:
                if self.retry is None or not may_retry(exc, False):
                    raise
                series = series or self.retry.series()
                wait = series.next_delay(exc, until)  # RetriesExhausted once the series is over
                log.debug("connecting again for %s in %.3fs after %s", "a held command", wait, exc)
                await self._pause(wait)

    async def _held_try(self, conn: AsyncTransport, request: Request[T], until: float, sent: list[int]) -> T:
        try:
            result = await conn.call(request, until, sent)
        except RemoteError:
            self._keep_held(conn)
            raise
        except BaseException:
            await self._drop_held(conn)
            raise
        self._keep_held(conn)
        return result

    async def _take_held_slot(self, until: float) -> bool:
        """One of the face's connections for held commands, by ``until``; False when that
        passed first."""
        raise NotImplementedError

    def _give_held_slot(self) -> None:
        raise NotImplementedError

    def _idle_held(self) -> AsyncTransport | None:
        """A connection for held commands that is free and open, if there is one."""
        raise NotImplementedError

    async def _open_held(self, until: float) -> AsyncTransport:
        """A new connection for held commands, by ``until``; the face closes it with itself."""
        raise NotImplementedError

    def _keep_held(self, conn: AsyncTransport) -> None:
        """``conn`` answered: it is free for the next held command."""
        raise NotImplementedError

    async def _drop_held(self, conn: AsyncTransport) -> None:
        """Close ``conn``, whose command was given up or failed."""
        raise NotImplementedError



class AsyncDedicated:
    """A connection of a face's own, for one ``async with`` block (:meth:`AsyncCalls.dedicated`).

    Its requests run on it alone, in the order made, and nothing is sent again: a lost
    connection ends the block's calls with the error. Leaving the block gives the
    connection back to the face, or closes it if a request on it was given up or failed
    other than by the server's error answer (what it holds is unknown then)."""

    def __init__(self, face: AsyncCalls, timeout: float | Unset | None) -> None:
        self._face = face
        self.timeout = pick_timeout(timeout, face.timeout)
        self._conn: AsyncTransport | None = None
        self._slot = False
        self.healthy = True  # no request on it was given up or failed but by an error answer

    async def __aenter__(self) -> Self:
        face = self._face
        face._check_caller()
        until = deadline(self.timeout)
        if not await face._take_held_slot(until):
            raise call_timeout()
        self._slot = True
        try:
            self._conn = face._idle_held() or await face._open_held_by(until)
        except BaseException:
            await self._give_back()
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        await self._give_back()

    @property
    def closed(self) -> bool:
        """Whether its requests can no longer run (outside the block, or the connection ended)."""
        return self._conn is None or self._conn.closed or not self.healthy

    async def request(self, request: Request[T], timeout: float | Unset | None = UNSET) -> T:
        """``request`` on this connection, within ``timeout`` (by default the block's)."""
        conn = self._conn
        if conn is None:
            raise UsageError("a dedicated connection's requests run inside its 'async with' block")
        try:
            return await conn.call(request, deadline(pick_timeout(timeout, self.timeout)))
        except RemoteError:
            raise
        except BaseException:
            self.healthy = False
            raise

    async def _give_back(self) -> None:
        face, conn, self._conn = self._face, self._conn, None
        try:
            if conn is not None:
                if self.healthy and not conn.closed:
                    face._keep_held(conn)
                else:
                    await face._drop_held(conn)
        finally:
            if self._slot:
                self._slot = False
                face._give_held_slot()
