"""The reference server in a separate process, so client and server do not share a GIL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import TracebackType


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
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line.startswith("listening on "):
            self._process.kill()
            self._process.wait()
            raise ServerProcessError(f"the server did not start: {line.strip()!r}")
        self.port = int(line.rsplit(":", 1)[1])
        return self

    def cpu_seconds(self) -> float | None:
        """The server process's CPU time so far (user + system), where ``/proc`` tells it
        (Linux); None elsewhere. Counted by the kernel in ticks (10 ms on most systems),
        so it means something only over many calls."""
        if self._process is None:
            return None
        try:
            with open(f"/proc/{self._process.pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

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
