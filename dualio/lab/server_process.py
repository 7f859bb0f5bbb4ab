"""The reference server in a separate process, so client and server do not share a GIL.

Its CPU time and resident memory are read from ``/proc`` on Linux, and through
psutil (when installed) elsewhere.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
from types import ModuleType, TracebackType


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


class ServerProcess:
    """``with ServerProcess(model="async") as server: server.host, server.port``."""

    def __init__(self, model: str = "async", host: str = "127.0.0.1") -> None:
        self.model = model
        self.host = host
        self.port = 0
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> ServerProcess:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "dualio", "serve", "--host", self.host, "--port", "0",
             "--model", self.model, "--handshake-timeout", "60"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            # Its own process group: a Ctrl-C at the terminal reaches the lab, which stops
            # the server itself after recording what finished.
            process_group=0,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line.startswith("listening on "):
            self._process.kill()
            self._process.wait()
            raise ServerProcessError(f"the server did not start: {line.strip()!r}")
        self.port = int(line.rsplit(":", 1)[1])
        return self

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def cpu_seconds(self) -> float | None:
        """The server process's CPU time so far (user + system); None where it cannot be
        read. Counted by the kernel in ticks (10 ms on most systems), so it means
        something only over many calls."""
        if self._process is None:
            return None
        try:
            with open(f"/proc/{self._process.pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
        psutil = _psutil()
        try:
            times = psutil.Process(self._process.pid).cpu_times() if psutil else None
        except Exception:  # psutil.Error: the process is gone or not ours to read
            return None
        return None if times is None else float(times.user + times.system)

    def rss_bytes(self) -> int | None:
        """The server's resident memory now."""
        if self._process is None:
            return None
        kib = _status_kib(self._process.pid, "VmRSS")
        if kib is not None:
            return kib * 1024
        psutil = _psutil()
        try:
            return int(psutil.Process(self._process.pid).memory_info().rss) if psutil else None
        except Exception:  # psutil.Error
            return None

    def reset_peak_rss(self) -> bool:
        """Start a new resident-memory peak (Linux: ``clear_refs``); False where it cannot."""
        if self._process is None:
            return False
        try:
            with open(f"/proc/{self._process.pid}/clear_refs", "w", encoding="ascii") as refs:
                refs.write("5")
        except OSError:
            return False
        return True

    def peak_rss_bytes(self) -> int | None:
        """The server's resident-memory peak since :meth:`reset_peak_rss` (Linux's VmHWM)."""
        if self._process is None:
            return None
        kib = _status_kib(self._process.pid, "VmHWM")
        return None if kib is None else kib * 1024

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
