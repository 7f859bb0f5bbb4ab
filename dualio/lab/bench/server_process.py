"""The reference server in a separate process, so client and server do not share a GIL.

Its CPU time and resident memory are read from ``/proc`` on Linux, and through
psutil (when installed) elsewhere. A server of several workers (``dualio serve
--workers N``) is a supervisor and its worker processes: their CPU time and memory
are added up.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
from types import ModuleType, TracebackType

MAX_RESTARTS = 3
"""Times in one run the lab starts again a server it started (the reference server, or
redis-server) that died or stopped answering."""


class RestartBudget:
    """The restarts one run may still make, shared by every server the lab started."""

    def __init__(self, limit: int = MAX_RESTARTS) -> None:
        self.limit = limit
        self.used = 0

    def take(self) -> bool:
        """Spend one restart; False when none is left."""
        if self.used >= self.limit:
            return False
        self.used += 1
        return True

    def __str__(self) -> str:
        return f"{self.used} of {self.limit}"


def _psutil() -> ModuleType | None:
    try:
        return importlib.import_module("psutil")
    except ImportError:
        return None


def _status_kib(pid: int, field: str) -> int | None:
    """A ``kB`` field of ``/proc/PID/status`` (VmRSS, VmHWM), or None where there is none."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


class ServerProcessError(RuntimeError):
    pass


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid``: a server's workers."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as children:
            return [int(child) for child in children.read().split()]
    except (OSError, ValueError):
        pass
    psutil = _psutil()
    try:
        return [child.pid for child in psutil.Process(pid).children()] if psutil else []
    except Exception:  # psutil.Error
        return []


def _clock_seconds(pid: int) -> float | None:
    """CPU seconds of every thread ``pid`` has had, ended ones included, to the
    nanosecond: the process's CPU-time clock (Linux makes its id from the pid, as
    ``clock_getcpuclockid`` does). None where there is no such clock."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return time.clock_gettime((~pid << 3) | _CPUCLOCK_SCHED)
    except OSError:
        return None


_CPUCLOCK_SCHED = 2  # the clock of a process's scheduled run time (linux/posix-timers.h)


def cpu_seconds(pid: int, reaped: bool = False) -> float | None:
    """CPU seconds of ``pid`` (its CPU-time clock where there is one, else user + system
    in clock ticks), None where they cannot be read; ``reaped``: with those of its
    children that ended (the workers a supervisor replaced; in ticks)."""
    scheduled = _clock_seconds(pid)
    if scheduled is not None:
        if not reaped:
            return scheduled
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return scheduled + (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if reaped else 0)
        return ticks / os.sysconf("SC_CLK_TCK")
    except OSError:
        pass
    psutil = _psutil()
    try:
        times = psutil.Process(pid).cpu_times() if psutil else None
    except Exception:  # psutil.Error: the process is gone or not ours to read
        return None
    if times is None:
        return None
    children = float(times.children_user + times.children_system) if reaped else 0.0
    return float(times.user + times.system) + children


class ServerProcess:
    """``with ServerProcess(model="async") as server: server.host, server.port``;
    ``workers`` above 1 starts ``dualio serve --workers N``."""

    def __init__(self, model: str = "async", host: str = "127.0.0.1", workers: int = 1,
                 options: tuple[str, ...] = ()) -> None:
        self.model = model
        self.host = host
        self.workers = workers
        self.options = options  # more `dualio serve` options
        self.port = 0
        self._process: subprocess.Popen[str] | None = None

    def _command(self) -> list[str]:
        if self.model == "peer":  # the lab's minimal server (dualio.lab.peers.asyncio_server)
            return [sys.executable, "-m", "dualio.lab.peers.asyncio_server",
                    "--host", self.host, "--port", "0"]
        return [sys.executable, "-m", "dualio", "serve", "--host", self.host, "--port", "0",
                "--model", self.model, "--handshake-timeout", "60",
                *(["--workers", str(self.workers)] if self.workers > 1 else []), *self.options]

    def start(self) -> ServerProcess:
        self._process = subprocess.Popen(
            self._command(),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            # Its own process group: a Ctrl-C at the terminal reaches the lab, which stops
            # the server itself after recording what finished.
            process_group=0,
        )
        assert self._process.stdout is not None
        try:
            line = self._process.stdout.readline()
        except BaseException:  # interrupted before anyone owns the process: stop it here
            self.stop()
            raise
        if not line.startswith("listening on "):
            self._process.kill()
            self._process.wait()
            raise ServerProcessError(f"the server did not start: {line.strip()!r}")
        self.port = int(line.rsplit(":", 1)[1])
        return self

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def pids(self) -> list[int]:
        """The server's processes: the one started, then its workers (if any)."""
        if self._process is None:
            return []
        return [self._process.pid, *_children(self._process.pid)]

    def cpu_seconds(self) -> float | None:
        """The server's CPU time so far (of every process of it, including workers that
        ended); None where it cannot be read. On Linux from each process's CPU-time clock,
        in nanoseconds; elsewhere (and for ended workers) in clock ticks of 10 ms, which
        mean something only over many calls."""
        pids = self.pids()
        seconds = [cpu_seconds(pid, reaped=pid == pids[0]) for pid in pids]
        if not seconds or any(value is None for value in seconds):
            return None
        return sum(value or 0.0 for value in seconds)

    def rss_bytes(self) -> int | None:
        """The server's resident memory now (of all its processes)."""
        pids = self.pids()
        if not pids:
            return None
        sizes = [_status_kib(pid, "VmRSS") for pid in pids]
        if all(size is not None for size in sizes):
            return sum(size or 0 for size in sizes) * 1024
        psutil = _psutil()
        try:
            return sum(int(psutil.Process(pid).memory_info().rss) for pid in pids) if psutil else None
        except Exception:  # psutil.Error
            return None

    def reset_peak_rss(self) -> bool:
        """Start a new resident-memory peak (Linux: ``clear_refs``); False where it cannot."""
        pids = self.pids()
        try:
            for pid in pids:
                with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as refs:
                    refs.write("5")
        except OSError:
            return False
        return bool(pids)

    def peak_rss_bytes(self) -> int | None:
        """The server's resident-memory peak since :meth:`reset_peak_rss` (Linux's VmHWM);
        with workers, the sum of each process's peak."""
        pids = self.pids()
        peaks = [_status_kib(pid, "VmHWM") for pid in pids]
        if not peaks or any(peak is None for peak in peaks):
            return None
        return sum(peak or 0 for peak in peaks) * 1024

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(10)
        except BaseException:  # too slow, or interrupted while waiting: never leave it running
            process.kill()
            process.wait()
            if not isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
                raise
        finally:
            if process.stdout is not None:
                process.stdout.close()  # the pipe its port was read from

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
