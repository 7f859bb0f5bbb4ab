"""``dualio serve --workers N``: N worker processes serve one port, under a supervisor.

The supervisor (the process ``dualio serve`` started as) binds the port, forks the
workers, restarts any that dies, and stops them all on SIGINT or SIGTERM. Each worker
runs one server of the chosen model, as ``dualio serve`` without ``--workers`` would.

Sharing the port:

- On Linux each worker binds its own listening socket with SO_REUSEPORT and the kernel
  spreads new connections over them. The supervisor holds one more socket, bound with
  SO_REUSEPORT but not listening, so the port (the one picked for ``--port 0``, too)
  stays the server's while workers come and go; a socket that does not listen gets no
  connections.
- Elsewhere (SO_REUSEPORT there does not balance), or with ``--shared-socket``, the
  supervisor listens before forking and every worker accepts from that one socket.

Why ``os.fork`` and not ``multiprocessing`` or a re-exec of ``dualio serve``: the two
things the workers share — the listening socket and the shared memory of the counters
(dualio.server.shared_counters) — are simply inherited across a fork. A re-exec would
have to hand both over explicitly, and would pay an interpreter start for every restart.
``multiprocessing`` would add what is not wanted here: its start-up closes stdin, its
own pipes to each child are inherited by the children forked later, and its exit hook
joins children. The supervisor stays single-threaded, so forking it is safe.

Supervision: a worker that dies, whatever the reason, is logged in one line (its pid,
its exit status or signal) and replaced, at once the first time and after a back-off
doubling from FIRST_BACKOFF for each further death within RESTART_WINDOW; one death
more than RESTART_LIMIT within the window ends the server (exit 1), so a worker that
fails as it starts cannot spin. A worker that dies before the server announced itself
ends it too: ``dualio serve`` either serves with all its workers or exits.

No orphans: each worker holds the read end of a pipe whose only write end the supervisor
holds. When the supervisor dies, even by SIGKILL, the pipe reads end-of-file and the
worker stops as on SIGTERM (and exits after ORPHAN_GRACE if that is not done by then).
A pipe rather than Linux's PR_SET_PDEATHSIG: it works on every Unix, and it does not
depend on which thread of the supervisor forked the worker.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import FrameType

from dualio.server.config import ServerConfig, check_workers
from dualio.server.listening import listen
from dualio.server.shared_counters import CounterTable

log = logging.getLogger("dualio.server")

RESTART_WINDOW = 60.0
RESTART_LIMIT = 5
"""Restarts of one worker within RESTART_WINDOW seconds; the next death ends the server."""
FIRST_BACKOFF = 0.1
"""Seconds before the second restart within the window; it doubles for each one after."""
START_TIMEOUT = 30.0
"""Seconds the workers have to listen before the server gives up starting."""
STOP_TIMEOUT = 8.0
"""Seconds the workers have to stop after SIGTERM before they are killed."""
ORPHAN_GRACE = 5.0
"""Seconds a worker whose supervisor died has to stop before it exits regardless."""
REAP_TIMEOUT = 5.0
"""How long the supervisor waits for killed workers to be gone before it exits anyway."""

WorkerMain = Callable[[ServerConfig, Callable[[int], None]], int]
"""Runs one worker's server until SIGTERM: given its config and a function to call with
the port once it listens; returns the worker's exit status."""

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGCHLD") if hasattr(signal, name))
"""(No SIGCHLD on Windows: importing this module must not fail there, though workers need fork.)"""


def kernel_balances_reuse_port() -> bool:
    """Whether sockets sharing a port with SO_REUSEPORT each get a share of its connections."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def describe_exit(status: int) -> str:
    """A wait status in words: ``exited with status 1``, ``killed by SIGKILL``."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"killed by {name}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


@dataclass
class _Worker:
    slot: int
    pid: int = 0  # 0: not running
    ready_fd: int = -1  # the supervisor's end of its "listening" pipe, until it is read
    ready: bool = False
    restart_at: float | None = None
    deaths: deque[float] = field(default_factory=deque)


class Supervisor:
    """``Supervisor(config, workers)`` binds the port (OSError if it cannot); ``run()``
    serves with the workers until SIGINT/SIGTERM and returns the exit status."""

    def __init__(self, config: ServerConfig, workers: int, shared_socket: bool | None = None) -> None:
        check_workers(workers)
        self.shared_socket = (not kernel_balances_reuse_port() if shared_socket is None
                              else shared_socket)
        if self.shared_socket:
            self._sockets = listen(config.host, config.port, config.backlog)
        else:
            self._sockets = listen(config.host, config.port, None, reuse_port=True)
        self.port: int = self._sockets[0].getsockname()[1]
        self._config = replace(
            config, port=self.port, reuse_port=not self.shared_socket,
            listening_sockets=tuple(self._sockets) if self.shared_socket else (),
        )
        self._table = CounterTable(workers)
        self._workers = [_Worker(slot) for slot in range(workers)]
        self._signals = 0
        self._failure: str | None = None
        self._wake_r = self._wake_w = self._lifeline_r = self._lifeline_w = -1

    # -- the supervisor ------------------------------------------------------------

    def run(self, worker_main: WorkerMain, announce: Callable[[int], None]) -> int:
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._lifeline_r, self._lifeline_w = os.pipe()
        previous = {sig: signal.signal(sig, self._on_signal) for sig in _SIGNALS}
        signal.set_wakeup_fd(self._wake_w)
        try:
            for worker in self._workers:
                self._spawn(worker, worker_main)
            return self._supervise(worker_main, announce)
        finally:
            self._kill_all()
            signal.set_wakeup_fd(-1)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            for fd in (self._wake_r, self._wake_w, self._lifeline_r, self._lifeline_w):
                os.close(fd)
            for sock in self._sockets:
                sock.close()

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        if number != signal.SIGCHLD:
            self._signals += 1

    def _supervise(self, worker_main: WorkerMain, announce: Callable[[int], None]) -> int:
        status: int | None = None  # set once stopping: the exit status
        announced = False
        start_deadline = time.monotonic() + START_TIMEOUT
        stop_deadline = kill_deadline = 0.0
        signals_at_stop = 0
        while True:
            now = time.monotonic()
            self._reap(now, stopping=status is not None, announced=announced)
            if status is None and not announced and now >= start_deadline:
                self._fail(f"the workers did not listen within {START_TIMEOUT:.0f} s")
            if status is None and (self._signals or self._failure):
                if self._failure:
                    print(f"dualio serve: {self._failure}", file=sys.stderr, flush=True)
                status = 1 if self._failure else 0
                signals_at_stop = self._signals
                stop_deadline = now + STOP_TIMEOUT
                self._signal_all(signal.SIGTERM)
            if status is not None:
                if not any(worker.pid for worker in self._workers):
                    return status
                if not kill_deadline and (now >= stop_deadline or self._signals > signals_at_stop):
                    log.warning("workers still running %s: killing them",
                                "after a second signal" if now < stop_deadline
                                else f"{STOP_TIMEOUT:.0f} s after SIGTERM")
                    self._signal_all(signal.SIGKILL)
                    kill_deadline = now + STOP_TIMEOUT
                elif kill_deadline and now >= kill_deadline:
                    return status  # killed, not yet gone (stuck in the kernel): nothing more to do
                wake_at = kill_deadline or stop_deadline
            else:
                if not announced and all(worker.ready for worker in self._workers):
                    announce(self.port)
                    announced = True
                for worker in self._workers:
                    if worker.restart_at is not None and worker.restart_at <= now:
                        try:
                            self._spawn(worker, worker_main)
                        except OSError as exc:  # out of processes or memory, for now
                            self._died(worker, f"could not be started: {exc}", now)
                wake_at = min([w.restart_at for w in self._workers if w.restart_at is not None]
                              + [now + 1.0 if announced else start_deadline])
            self._wait(max(0.0, wake_at - time.monotonic()))

    def _fail(self, reason: str) -> None:
        """End the server with exit status 1 for ``reason`` (the first one given)."""
        if self._failure is None:
            self._failure = reason

    def _wait(self, timeout: float) -> None:
        """Until a signal (a worker's death included), a worker says it listens, or ``timeout``."""
        ready = {worker.ready_fd: worker for worker in self._workers if worker.ready_fd >= 0}
        readable, _, _ = select.select([self._wake_r, *ready], [], [], timeout)
        for fd in readable:
            if fd == self._wake_r:
                try:
                    while os.read(self._wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
                continue
            worker = ready[fd]
            worker.ready = bool(os.read(fd, 1))  # end of file: it died before listening
            os.close(fd)
            worker.ready_fd = -1

    def _reap(self, now: float, *, stopping: bool, announced: bool) -> None:
        """Collect the workers that ended; schedule their restarts."""
        while True:
            try:
                pid, wait_status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            worker = next((w for w in self._workers if w.pid == pid), None)
            if worker is None:
                continue
            worker.pid = 0
            worker.ready = False
            if worker.ready_fd >= 0:
                os.close(worker.ready_fd)
                worker.ready_fd = -1
            how = describe_exit(wait_status)
            if stopping:
                if wait_status:
                    log.info("worker %d (pid %d) %s", worker.slot, pid, how)
            elif not announced:
                self._fail(f"worker {worker.slot} (pid {pid}) {how} before it listened")
            else:
                self._died(worker, f"(pid {pid}) {how}", now)

    def _died(self, worker: _Worker, how: str, now: float) -> None:
        """Schedule the restart of a worker that died (or could not be forked); at its
        death number RESTART_LIMIT + 1 within the window, give up."""
        deaths = worker.deaths
        deaths.append(now)
        while deaths[0] < now - RESTART_WINDOW:
            deaths.popleft()
        if len(deaths) > RESTART_LIMIT:
            self._fail(f"worker {worker.slot} {how}, its death number {len(deaths)} within "
                       f"{RESTART_WINDOW:.0f} s: giving up")
            return
        delay = 0.0 if len(deaths) == 1 else FIRST_BACKOFF * 2 ** (len(deaths) - 2)
        worker.restart_at = now + delay
        log.warning("worker %d %s; restarting it in %.1f s", worker.slot, how, delay)

    def _spawn(self, worker: _Worker, worker_main: WorkerMain) -> None:
        worker.restart_at = None
        self._table.reset_gauges(worker.slot)
        ready_r, ready_w = os.pipe()
        # Signals wait until the child has set its own handlers (it must not run ours).
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            pid = os.fork()
            if pid == 0:
                os.close(ready_r)
                self._be_worker(worker.slot, ready_w, worker_main)  # never returns
        except BaseException:
            os.close(ready_r)
            raise
        finally:
            os.close(ready_w)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
        worker.pid, worker.ready_fd, worker.ready = pid, ready_r, False
        log.info("worker %d started: pid %d", worker.slot, pid)

    def _signal_all(self, sig: signal.Signals) -> None:
        for worker in self._workers:
            worker.restart_at = None
            if worker.pid:
                try:
                    os.kill(worker.pid, sig)
                except ProcessLookupError:
                    pass

    def _kill_all(self) -> None:
        """Leave no worker behind, whatever ended the supervisor."""
        self._signal_all(signal.SIGKILL)
        until = time.monotonic() + REAP_TIMEOUT  # a process stuck in the kernel may outlive SIGKILL
        for worker in self._workers:
            while worker.pid:
                try:
                    done, _ = os.waitpid(worker.pid, os.WNOHANG)
                except ChildProcessError:
                    done = worker.pid
                if done or time.monotonic() >= until:
                    worker.pid = 0
                else:
                    time.sleep(0.01)
            if worker.ready_fd >= 0:
                os.close(worker.ready_fd)
                worker.ready_fd = -1

    # -- a worker ------------------------------------------------------------------

    def _be_worker(self, slot: int, ready_w: int, worker_main: WorkerMain) -> None:
        """The forked child: serve until SIGTERM, then exit without returning."""
        status = 1
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor decides when to stop
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
            for fd in (self._wake_r, self._wake_w, self._lifeline_w,
                       *(w.ready_fd for w in self._workers if w.ready_fd >= 0)):
                os.close(fd)
            if not self.shared_socket:
                for sock in self._sockets:
                    sock.close()
            _stop_when_orphaned(self._lifeline_r)
            config = replace(self._config, counters=self._table.counters(slot))

            def listening(port: int) -> None:
                os.write(ready_w, b"+")
                os.close(ready_w)

            status = worker_main(config, listening)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(status)


def _stop_when_orphaned(lifeline: int) -> None:
    """Stop this worker as on SIGTERM once ``lifeline`` reads end-of-file (the supervisor,
    the only holder of its write end, is gone); exit after ORPHAN_GRACE regardless."""

    def watch() -> None:
        try:
            while os.read(lifeline, 1):
                pass
        except OSError:
            pass
        log.warning("worker (pid %d): the supervisor is gone: stopping", os.getpid())
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(ORPHAN_GRACE)
        os._exit(1)

    threading.Thread(target=watch, name="dualio-orphan-watch", daemon=True).start()
