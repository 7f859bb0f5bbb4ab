"""The blocking socket transport: one TCP (or TLS) connection, many calls in flight.

No thread of its own is needed: a thread waiting for an answer takes the
*reader role*, reads whatever arrives and hands it to the call table, then
passes the role on (leader/follower). So a program with one thread per
connection runs exactly one thread per connection.

The emulation extends it with callback-style calls and a reader thread of their own
(:mod:`dualio_transports.emulation.reader_thread_connection`), and abandons calls from
its event loop through a :class:`Handle`.

The socket is non-blocking and every wait is a ``poll`` with the caller's own
deadline, so no call outlives its timeout. What a frame means is the call
table's (:mod:`dualio_transports.wire.call_table`), what a call does is the procedure's
(:mod:`dualio_transports.wire.procedure`); this module waits and moves bytes.
"""

from __future__ import annotations

import functools
import logging
import select
import selectors
import socket
import ssl
import sys
import threading
from collections.abc import Callable, Generator
from threading import get_ident
from time import monotonic
from typing import Any, Protocol, Self, TypeVar

from dualio_transports.blocking import driver
from dualio_transports.blocking.dialing import Connecting, open_socket
from dualio_transports.pending_input import PendingInput
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.wire import failures, procedure
from dualio_transports.wire.call_table import CallState, CallTable
from dualio_transports.wire.connection_facts import ConnectionFacts
from dualio_transports.wire.deadline import ItemDeadlines, seconds_left
from dualio_transports.wire.errors import DualioError
from dualio_transports.wire.frame_write import FrameWrite
from dualio_transports.wire.request import Request, StreamRequest
from dualio_transports.wire.timing import at_most, control_deadline, grace_deadline

T = TypeVar("T")
R = TypeVar("R")

log = logging.getLogger("dualio.transport")
_RECV_SIZE = 256 * 1024


LiveCall = CallState[Any]  # its waiter is the emulation's (a completion), or None


def _where() -> str:
    """The exception on its way out and the line it was raised at, for the failure's text."""
    exc = sys.exc_info()[1]
    if exc is None:
        return "no exception"
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if tb.tb_next is None or "transports" in code.co_filename or "threading" in code.co_filename:
            frames.append(f"{code.co_name}:{tb.tb_lineno}")
        tb = tb.tb_next
    return f"{type(exc).__name__} at {' < '.join(reversed(frames))}"


class _Sleeper:
    """A thread's condition on the connection's mutex, knowing whether the mutex was taken
    back after a wait. An interrupt (a ``gevent.Timeout``, an exception from a signal
    handler) can land while the mutex is being taken back; the sleeping caller's ``with``
    block must still hold it on the way out, or it would release what it does not hold."""

    __slots__ = ("_lock", "cond", "holds")

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self.holds = True
        self.cond = threading.Condition(self)  # type: ignore[arg-type]  # a lock by its methods

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def _is_owned(self) -> bool:
        """The condition's check that its caller holds the mutex, which every caller does
        (the connection's rule). The condition's own check takes the mutex without
        blocking, and under gevent that can switch greenlets: an interrupt would land in
        the middle of routing what was read, and the connection would be lost."""
        return True

    def _release_save(self) -> None:
        self.holds = False
        self._lock.release()

    def _acquire_restore(self, state: None) -> None:
        self._lock.acquire()
        self.holds = True

    def take_back(self) -> None:
        """After an interrupted wait: hold the mutex again, if the interrupt came first."""
        if not self.holds:
            self._lock.acquire()
            self.holds = True


class Handle(Protocol):
    """Lets another thread abandon a call once its request left (the emulation's
    :class:`dualio_transports.emulation.call_handle.CallHandle`)."""

    @property
    def cancelled(self) -> bool: ...

    def bind(self, conn: BlockingConnection, call: LiveCall) -> bool:
        """Bind to ``call``, sent on ``conn``; False if cancelled already."""
        ...

    def release(self) -> None:
        """The call is over."""
        ...


def _check_not_cancelled(handle: Handle) -> None:
    if handle.cancelled:
        raise failures.cancelled_before_sent()


class BlockingConnection(ConnectionFacts[Any]):
    """A connected, handshaken client connection. Thread-safe."""

    def __init__(self, sock: socket.socket, options: ConnectOptions) -> None:
        sock.setblocking(False)
        self._sock = sock
        self._table: CallTable[Any] = CallTable(
            options.wire_protocol(), now=monotonic(), wake=self._wake,
            keepalive=options.keepalive, order_at_start=False,  # a request is written under _write_lock
        )
        self._follow_end()
        self._mutex = threading.Lock()  # guards the table; never held across I/O or callbacks
        self._cond = threading.Condition(self._mutex)  # threads waiting for the role, not for a call
        self._sleeping: dict[LiveCall, threading.Condition] = {}  # threads asleep in _wait, by call
        self._own_cond = threading.local()  # each thread's _Sleeper (a condition on _mutex)
        self._write_lock = threading.Lock()
        self._tls = isinstance(sock, ssl.SSLSocket)
        self._io_lock = threading.Lock()  # OpenSSL objects must not read and write at once
        self._ready: list[Callable[[], None]] = []  # callbacks _wake queued, to run in order
        self._reading = 0  # the ident of the thread holding the reader role; 0: nobody
        self._sleepers = 0  # threads in self._cond.wait() (the emulation's reader thread)
        self._read_poll = _poller(sock, "POLLIN")  # used by the reader role only
        self._pending_input = PendingInput(sock)
        self._unread = PendingInput(sock, busy=True)  # asked by a cache, from any thread
        self._control: list[bytes] = []  # CANCEL and PING frames waiting for the write lock
        self._control_calls: list[LiveCall] = []  # the PINGs' calls among them (answers in order)
        self._ordered = self._table.ordered
        self._poll_slice: float | None = None  # a reader's longest poll (None: its caller's time)
        self._write_poll = _poller(sock, "POLLOUT")

    # -- opening ------------------------------------------------------------

    @classmethod
    def connect(cls, options: ConnectOptions, until: float, attempt: Connecting | None = None) -> Self:
        """Connect and handshake by ``until`` (``connect_timeout`` from now at the latest);
        ``attempt`` lets another thread stop it."""
        until = options.connect_deadline(until)
        attempt = attempt or Connecting()
        try:
            sock = open_socket(options, until, attempt)
        except OSError as exc:
            raise failures.connect_failed(options.where, exc) from exc
        conn = cls(sock, options)
        try:
            conn._handshake(until)
            attempt.check()
        except BaseException:
            conn._shutdown()
            attempt.check()
            raise
        return conn

    def _handshake(self, until: float) -> None:
        self._drive(procedure.handshake(self._table, until, monotonic()))

    def has_pending_input(self) -> bool:
        """Whether bytes wait on the socket that nobody read yet (a push, say): a
        client-side cache asks before it answers from memory, without reading."""
        return self._reading != 0 or self._unread()

    # -- calls ----------------------------------------------------------------

    def call(
        self, request: Request[T], until: float, sent: list[int] | None = None,
        handle: Handle | None = None,
    ) -> T:
        """Send one request and wait for its answer by ``until``. ``sent`` is told the
        request's id (see transports/interface.py).

        :func:`procedure.roundtrip`, its straight line written out: start, send, the
        first wait. The generator's steps cost a quarter of a sync call on top (71,935 →
        90,967 instructions), so the usual path calls the procedure only for what is not
        straight: a failed write, a wait past the first deadline or keepalive check, a
        give-up.

        A caller alone on the connection takes the reader role in the lock round that
        starts its call, so start, send, read and route take two rounds of the mutex. A
        write that has to wait for the socket gives the role up first (:meth:`_send`):
        the answers that would free the socket are read meanwhile by whoever waits.
        The table is read and changed under the mutex only; a connection found idle is read
        (``ReadIdle``) in a round of its own before the one that starts the call."""
        table = self._table
        reader = 0  # this thread's ident while it holds the reader role taken with the start
        if handle is not None:
            _check_not_cancelled(handle)
        try:
            with self._mutex:
                now = monotonic()
                idle = table.idle(now)
                if not idle:
                    call, data = table.start(
                        request.kind, request.method, request.args, request.answers, until)
                    wake = table.wait_end(call, now)  # the first wait ends: the deadline or a check
                    if handle is None and not self._reading and not table.backlogged:
                        reader = get_ident()  # before the role is taken: the finally below gives it back
                        self._reading = reader
            if idle:
                self._read_idle()
                with self._mutex:
                    call, data = table.start(
                        request.kind, request.method, request.args, request.answers, until)
                    wake = table.wait_end(call, monotonic())
                    if handle is None and not self._reading and not table.backlogged:
                        reader = get_ident()
                        self._reading = reader
            try:
                late = self._send(data, call, reader != 0)
            except BaseException:
                self._drive(procedure.unsent(table, call, False))
                raise
            del data  # the request can be large: not kept while the answer is awaited
            if sent is not None:
                sent.append(call.id)
            try:
                if late is not None:
                    raise late
                if not call.done:  # else answered already, or a request that expects no answer
                    if handle is not None and not handle.bind(self, call):
                        raise failures.cancelled_while_sent()
                    if call.until <= monotonic():  # the send took the call's time (as await_news says)
                        raise failures.call_timeout()
                    if reader and self._reading == reader:  # perform()'s Await, written out
                        self._read_once(wake)  # gives the role up, unless interrupted before it held it
                        answered: bool = call.done
                    else:
                        answered = self._lone_read(call, wake)
                    if not answered:
                        self._wait(call, wake, want_item=False)
                        if not call.done:
                            self._drive(procedure.answer(table, call, monotonic()))
            except BaseException:
                self._drive(procedure.give_up(table, call))
                raise
        finally:
            if reader and self._reading == reader:
                self._leave_reader_role()
            if handle is not None:
                handle.release()
        return request.decode(call.outcome())

    def stream(
        self, request: StreamRequest[T], until: float, item_timeout: float | None,
        sent: list[int] | None = None,
    ) -> Generator[T, None, None]:
        """Items of a stream as they arrive: the first by ``until``, each later one within
        ``item_timeout`` of asking for it. Leaving the loop early cancels the stream on the server.
        """
        deadlines = ItemDeadlines(until, item_timeout)
        steps = procedure.stream(self._table, request.method, request.args, deadlines, monotonic(), sent)
        return driver.stream_items(steps, self.perform, request.decode_item, self.step)

    def stream_items(
        self, call: LiveCall, deadlines: ItemDeadlines
    ) -> Generator[procedure.Effect, float, None]:
        """The procedure that takes a stream's items (:func:`procedure.items`), for a driver
        on another thread: it runs each step with :meth:`step` and performs what it yields,
        waiting for an ``Await`` its own way (``on_news``)."""
        return procedure.items(self._table, call, deadlines, monotonic())

    def cancel(self, call: LiveCall) -> None:
        """Stop waiting for ``call``: whoever waits gets CallCancelled, its late answer
        is dropped, and the server is told."""
        self._drive(procedure.give_up(self._table, call))

    # -- the driver -----------------------------------------------------------------

    def _drive(self, steps: Generator[procedure.Effect, float, R], handle: Handle | None = None) -> R:
        """Run a procedure to its end (from this thread), performing its effects."""
        perform = self.perform if handle is None else functools.partial(self.perform, handle=handle)
        return driver.run(steps, perform, self.step)

    def step(
        self, steps: Generator[procedure.Effect, float, Any], error: BaseException | None, now: float | None,
    ) -> procedure.Effect:
        """One step of a procedure (:func:`async_driver.step_here`), holding the mutex (it
        uses the call table); the completion callbacks it queued run after."""
        try:
            self._mutex.acquire()
        except BaseException as exc:
            # Interrupted while waiting for the mutex (a gevent.Timeout): the procedure
            # must still hear of it, to give its call up by the table's rules.
            self._mutex.acquire()
            error = exc
        try:
            return steps.send(now) if error is None else steps.throw(error)  # type: ignore[arg-type]
        finally:
            ready = self._take_ready()
            self._mutex.release()
            if ready:
                _run_all(ready)

    def perform(self, effect: procedure.Effect, handle: Handle | None = None) -> None:
        """Perform one effect; an ``Await`` blocks this thread (a driver on an event loop
        waits for its news itself)."""
        if type(effect) is procedure.Await:
            if effect.want_item or not self._lone_read(effect.call, effect.wake):
                self._wait(effect.call, effect.wake, effect.want_item)
        elif type(effect) is procedure.Send:
            late = self._send(effect.data, effect.call)
            effect.may_have_left = True
            if late is not None:
                raise late
        elif type(effect) is procedure.Control:
            with self._mutex:
                self._control.append(effect.data)
                if effect.call is not None:
                    self._control_calls.append(effect.call)
            self._flush_control()
        elif type(effect) is procedure.ReadIdle:
            self._read_idle()
        elif type(effect) is procedure.ReadOn:
            with self._mutex:
                self._wake_all()
        elif type(effect) is procedure.Teardown:
            self._broken(effect.failure)
        elif type(effect) is procedure.Started and handle is not None and not handle.bind(self, effect.call):
            raise failures.cancelled_while_sent()

    # -- waiting and reading -----------------------------------------------

    def _wake(self, call: LiveCall) -> None:
        """The table's wake: wake the thread asleep on ``call``. Holds _mutex."""
        sleeper = self._sleeping.get(call)
        if sleeper is not None:
            sleeper.notify()

    def _take_ready(self) -> list[Callable[[], None]]:
        """Callbacks queued by the table. Holds _mutex."""
        if not self._ready:
            return []
        ready, self._ready = self._ready, []
        return ready

    def _wait(self, call: LiveCall, wake: float, want_item: bool) -> None:
        """Return once ``call`` is done (or has an item); read while nobody else does.

        A thread that takes the reader role keeps it until its own call is done (or a
        stream's backlog holds it), then passes it to one sleeper: one hand-off per
        call, not one per read."""
        holding = False  # this thread may have the reader role (it has it if _reading is its ident)
        try:
            while True:
                with self._mutex:
                    try:
                        while True:
                            if call.done or (want_item and call.items):
                                return
                            left = seconds_left(wake)
                            if left is not None and left <= 0:
                                return
                            if self._table.holds_reading(call):
                                if holding:  # another stream's consumer is behind: not for us to read
                                    self._reading = 0
                                    holding = False
                                    self._pass_reader_role()
                            elif holding:
                                break
                            elif not self._reading:
                                holding = True
                                self._reading = get_ident()
                                break
                            self._sleep(call, left)
                    finally:
                        if not self._reading and self._sleeping:
                            self._pass_reader_role()  # it may have been passed to this thread
                self._read_once(wake, keep_role=True)
                if call.done or (want_item and call.items):
                    return  # routed by this thread just now
        finally:
            if holding:
                with self._mutex:
                    if self._reading == get_ident():
                        self._reading = 0
                        self._pass_reader_role()

    def _lone_read(self, call: LiveCall | None, wake: float) -> bool:
        """The common case, a caller alone on the connection: if the reader role is free,
        take it, read once (until ``wake`` at most) and route what came, which gives the
        role back. True if that ended ``call``; else the caller waits as :meth:`_wait` does."""
        table = self._table
        me = get_ident()
        taken = False
        try:
            with self._mutex:
                if call is not None and call.done:
                    return True
                if self._reading or table.backlogged:
                    return False
                taken = True
                self._reading = me
            self._read_once(wake)
        finally:
            if taken and self._reading == me:  # interrupted before _read_once held it
                with self._mutex:
                    self._reading = 0
                    self._pass_reader_role()
        return call is None or call.done

    def _read_idle(self) -> None:
        """Read what arrived while the connection was idle, if anything did (``ReadIdle``)."""
        if not self._reading and self._pending_input():
            self._lone_read(None, 0.0)

    def _read_once(self, wake: float, keep_role: bool = False) -> bool:
        """Read what arrives by ``wake`` and route it. Holds the reader role, and
        gives it up on the way out whatever happens (a KeyboardInterrupt included);
        with ``keep_role``, never: the caller does."""
        failure: DualioError | None = None
        data: bytes | int | None = None
        routed = False
        released = keep_role
        try:
            room = self._table.room()  # only the reader feeds the decoder
            try:
                data = self._recv(wake, room)
                if not data and data is not None:
                    failure = failures.peer_closed()
            except OSError as exc:
                failure = failures.broken(exc)
            interrupt: BaseException | None = None
            try:
                self._mutex.acquire()
            except BaseException as exc:
                # Interrupted while waiting for the mutex (a gevent.Timeout): the bytes read
                # are the connection's, not this caller's; route them, then raise.
                interrupt = exc
                while True:  # a second interrupt meanwhile (a kill) must not lose them either
                    try:
                        self._mutex.acquire()
                        break
                    except BaseException:
                        continue
            try:
                if failure is not None:
                    self._table.fail(failure)
                elif data:
                    failure = self._table.receive(data, monotonic())
                routed = True
                if failure is not None:
                    self._shutdown_socket()
                ready = self._take_ready() if self._ready else None
                if not ready and not released:
                    self._reading = 0
                    released = True
                    if self._sleeping or self._sleepers:
                        self._pass_reader_role()
            finally:
                self._mutex.release()
            if ready:
                # Still holding the reader role, so callbacks run one at a time, in frame order.
                _run_all(ready)
            if interrupt is not None:
                raise interrupt
            return failure is None
        finally:
            if data and not routed:  # bytes read but never routed: the stream is lost
                self._broken(failures.broken(RuntimeError(f"interrupted while reading: {_where()}")))
            if not released:
                with self._mutex:
                    self._reading = 0
                    self._pass_reader_role()

    def _sleep(self, call: LiveCall, left: float | None) -> None:
        """Sleep until ``call`` has news (:meth:`_wake`), the reader role is passed to this
        thread, or ``left`` seconds pass. Holds _mutex (released while asleep)."""
        sleeper = self._own_cond.__dict__.get("sleeper")
        if sleeper is None:
            sleeper = self._own_cond.sleeper = _Sleeper(self._mutex)
        self._sleeping[call] = sleeper.cond
        try:
            sleeper.cond.wait(left)
        except BaseException:
            sleeper.take_back()
            raise
        finally:
            del self._sleeping[call]

    def _pass_reader_role(self) -> None:
        """The reader role is free: wake one thread to take it (all of them while a
        stream's backlog holds reading: the one woken might be held). Only the threads
        whose calls have news are woken otherwise, never every waiter. Holds _mutex."""
        if self._sleeping:
            if self._table.backlogged:
                self._wake_all()
                return
            next(iter(self._sleeping.values())).notify()
        if self._sleepers:
            self._cond.notify()

    def _wake_all(self) -> None:
        """Holds _mutex."""
        for cond in self._sleeping.values():
            cond.notify()
        if self._sleepers:
            self._cond.notify_all()

    # -- socket I/O ---------------------------------------------------------

    def _wait_io(self, event: int, wake: float, poller: select.poll | None) -> bool:
        """Wait until the socket is ready for ``event``; False when ``wake`` passes first."""
        left = seconds_left(wake)
        if left is not None and left <= 0:
            left = 0.0  # one look, no wait
        if poller is None:  # TLS wanting the other direction (rare), or no poll() on this OS
            with selectors.DefaultSelector() as sel:
                sel.register(self._sock, event)
                return bool(sel.select(left))
        return bool(poller.poll(_poll_ms(left)))

    def _recv(self, wake: float, room: memoryview | None) -> bytes | int | None:
        """Bytes received by ``wake`` (into ``room`` if given: their count), ``b""`` or 0
        at end of stream, None if nothing came in time."""
        if self._poll_slice is not None:
            wake = at_most(wake, self._poll_slice)
        if not self._tls:  # wait first: an answer is rarely in already, and a failed recv costs more
            poller = self._read_poll
            while True:
                if poller is not None:  # the usual case, without a selector
                    left = seconds_left(wake)
                    if not poller.poll(None if left is None else int(left * 1000) + 1 if left > 0 else 0):
                        return None  # (milliseconds rounded up, as _poll_ms)
                elif not self._wait_io(selectors.EVENT_READ, wake, None):
                    return None
                try:
                    return self._sock.recv(_RECV_SIZE) if room is None else self._sock.recv_into(room)
                except BlockingIOError:  # readable, then not: wait again, for what is left
                    left = seconds_left(wake)
                    if left is not None and left <= 0:
                        return None
        while True:  # TLS: bytes may wait decrypted inside OpenSSL, where poll cannot see them
            try:
                with self._io_lock:
                    return self._sock.recv(_RECV_SIZE) if room is None else self._sock.recv_into(room)
            except (BlockingIOError, ssl.SSLWantReadError):
                ready = self._wait_io(selectors.EVENT_READ, wake, self._read_poll)
            except ssl.SSLWantWriteError:
                ready = self._wait_io(selectors.EVENT_WRITE, wake, None)
            if not ready:
                return None

    def _send(self, data: bytes, call: LiveCall | None, reader: bool = False) -> BaseException | None:
        """Write one whole frame (then any queued CANCELs) by its ``call``'s deadline (no call:
        a goodbye, by the grace deadline), or fail the connection; raises only if the frame
        did not leave whole. An interrupt once it has (while the CANCELs go) is returned, for
        the caller to raise as a failure after sending. A ``reader`` (the caller holds the
        reader role) gives the role up before any wait. ``call``, whose request ``data`` is,
        takes its place in the order of answers as it is written, for a protocol answered
        in order."""
        grace = grace_deadline() if call is None else 0.0  # a goodbye's, for the lock and the write
        if not self._write_lock.acquire(False):
            if reader:
                self._leave_reader_role()
            left = seconds_left(grace if call is None else call.until)
            if not self._write_lock.acquire(timeout=-1 if left is None else max(left, 0)):
                raise failures.write_timeout()
        try:
            if call is not None and self._ordered:
                with self._mutex:
                    self._table.enter_order(call)
            self._write_locked(data, call, reader, grace)
            if self._control:
                try:  # the frame left whole: from here an interrupt is returned, not raised
                    if reader:
                        self._leave_reader_role()
                    self._write_control_locked()
                except BaseException as exc:
                    return exc
        finally:
            self._write_lock.release()
        return None

    def _leave_reader_role(self) -> None:
        """Give up the reader role if this thread holds it, and pass it on."""
        if self._reading == get_ident():
            with self._mutex:
                if self._reading == get_ident():
                    self._reading = 0
                    self._pass_reader_role()

    def _flush_control(self) -> None:
        """Write queued CANCEL frames now if nobody is writing and the socket has room;
        else the next writer sends them.

        Never waits (for the lock or the socket), so cancelling from an event loop, or a
        call ending at its timeout, cannot be held up by it.
        """
        if self._write_lock.acquire(blocking=False):
            try:
                if self._wait_io(selectors.EVENT_WRITE, control_deadline(), self._write_poll):
                    self._write_control_locked()
            finally:
                self._write_lock.release()

    def _write_control_locked(self) -> None:
        if not self._control:
            return
        with self._mutex:
            frames, self._control = self._control, []
            for probe in self._control_calls:  # PINGs take their place in the order as they go
                self._table.enter_order(probe)
            self._control_calls.clear()
        try:
            self._write_locked(b"".join(frames), None, grace=grace_deadline())
        except DualioError:
            pass  # the connection is failed already; a CANCEL is only advice

    def _write_locked(
        self, data: bytes, call: LiveCall | None, reader: bool = False, grace: float = 0.0,
    ) -> None:
        """Write ``data`` whole under the write lock, by the rules of :class:`FrameWrite`,
        by ``call``'s deadline (None: frames of no call's, CANCELs and a goodbye, by
        ``grace``, the grace deadline). Most writes fit in the socket at once and never make
        one. A ``reader`` gives the reader role up before it waits for the socket."""
        try:
            if self._tls:
                with self._io_lock:
                    sent = self._sock.send(data)
            else:
                sent = self._sock.send(data)
            if sent == len(data):
                return
            event = selectors.EVENT_WRITE
        except (BlockingIOError, ssl.SSLWantWriteError):
            sent, event = 0, selectors.EVENT_WRITE
        except ssl.SSLWantReadError:
            sent, event = 0, selectors.EVENT_READ
        except OSError as exc:
            raise self._broken(failures.broken(exc))  # noqa: B904  (its cause is set)
        write = FrameWrite(data, grace if call is None else call.until)
        write.sent(sent)
        try:
            if reader:  # part of the frame may be out: an interrupt here is a torn write too
                self._leave_reader_role()
            while True:
                poller = self._write_poll if event == selectors.EVENT_WRITE else None
                if not self._wait_io(event, write.wait_until(), poller):
                    error, failure = write.expired()
                    if failure is not None:
                        self._broken(failure)
                    raise error
                try:
                    if self._tls:
                        with self._io_lock:
                            sent = self._sock.send(write.rest)
                    else:
                        sent = self._sock.send(write.rest)
                    write.sent(sent)
                    if write.finished:
                        return
                    event = selectors.EVENT_WRITE
                except (BlockingIOError, ssl.SSLWantWriteError):
                    event = selectors.EVENT_WRITE
                except ssl.SSLWantReadError:
                    event = selectors.EVENT_READ
                except OSError as exc:
                    raise self._broken(failures.broken(exc))  # noqa: B904  (its cause is set)
        except DualioError:
            raise
        except BaseException:
            failure = write.interrupted("interrupted")
            if failure is not None:
                self._broken(failure)
            raise

    def _broken(self, failure: DualioError) -> DualioError:
        """Fail the connection; the failure it ended with (the first one)."""
        with self._mutex:
            failure = self._table.fail(failure)
            self._shutdown_socket()
            self._wake_all()  # a reader held by a stream's backlog ends now
            ready = self._take_ready()
        _run_all(ready)
        return failure

    def _shutdown_socket(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- closing --------------------------------------------------------------

    def close(self) -> None:
        """Say goodbye, fail what is still waiting with ClosedError, join the reader."""
        with self._mutex:
            if self._table.closing:
                return
            goodbye = self._table.close()
        late: BaseException | None = None
        if goodbye:
            try:
                late = self._send(goodbye, None)
            except DualioError:
                pass
        self._broken(failures.closed_by_user())
        self._shutdown()
        if late is not None:
            raise late

    def abort(self) -> None:
        """Close at once, without a goodbye and without waiting: for a connection nobody
        has called on yet (so no reader thread runs), given up by whoever asked for it."""
        self._broken(failures.closed_by_user())
        self._sock.close()

    def forget(self) -> None:
        """Drop a connection inherited across ``fork()``: close this process's copy of
        the socket and nothing else (no goodbye, no shutdown, no lock, no thread)."""
        self._sock.close()

    def _shutdown(self) -> None:
        self._sock.close()


def _poller(sock: socket.socket, event: str) -> select.poll | None:
    """A poll object for one socket and one direction; None where the OS has no
    ``poll()`` (Windows), and then each wait uses a selector instead."""
    if not hasattr(select, "poll"):
        return None
    poller = select.poll()
    poller.register(sock, getattr(select, event))
    return poller


def _poll_ms(timeout: float | None) -> int | None:
    """``timeout`` seconds as ``poll()`` takes them: milliseconds rounded up (a poll never
    ends before the time asked), 0 for no wait, None for no limit."""
    if timeout is None:
        return None
    return int(timeout * 1000) + 1 if timeout > 0 else 0


def _run_all(callbacks: list[Callable[[], None]]) -> None:
    """Run completion callbacks; one that raises is logged and never stops the others."""
    for run in callbacks:
        try:
            run()
        except Exception:
            log.exception("a completion callback raised")
