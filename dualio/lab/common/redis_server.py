"""A redis-server child process on 127.0.0.1, for the lab and the test suite: started on
a free port of its own (Redis cannot choose one), saving nothing to disk, bounded in time,
and stopped by its PID."""

from __future__ import annotations

import random
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

OLDEST = (6, 0)
"""The oldest redis-server the lab measures: HELLO 3 (RESP3) came with 6.0."""
START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0
NOT_INSTALLED = "redis-server is not installed (Debian: apt-get install redis-server)"


class RedisServerError(RuntimeError):
    """redis-server is not installed, or did not start."""


@dataclass
class RedisServer:
    """A redis-server child process on 127.0.0.1."""

    process: subprocess.Popen[bytes]
    port: int
    directory: str
    password: str | None = None
    host: str = "127.0.0.1"

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    def log(self) -> str:
        try:
            return Path(self.directory, "redis.log").read_text(errors="replace")
        except OSError:
            return ""

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> int:
        """Stop it by its PID (SIGTERM, then SIGKILL after STOP_TIMEOUT); its exit status."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
        return self.process.returncode


def server_version(executable: str | None = None) -> tuple[int, ...] | None:
    """redis-server's version, from ``redis-server --version``; None when it says none."""
    path = executable or shutil.which("redis-server")
    if path is None:
        return None
    try:
        text = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"v=(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(part) for part in found.groups()) if found else None


def unavailable(executable: str | None = None) -> str:
    """Why the lab cannot measure against this redis-server, or ""."""
    version = server_version(executable)
    if version is None:
        if shutil.which(executable or "redis-server") is None:
            return NOT_INSTALLED
        return "redis-server --version printed no version"
    if version[:2] < OLDEST:
        return (f"redis-server {'.'.join(map(str, version))} is older than "
                f"{'.'.join(map(str, OLDEST))}: no RESP3 (HELLO 3)")
    return ""


def free_port() -> int:
    """A port nothing listens on now (another process may take it before redis-server
    does: :func:`start_redis` then tries another)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _accepting(server: RedisServer) -> bool:
    """Whether ``server`` accepts connections within START_TIMEOUT (False: it exited, or not yet)."""
    until = time.monotonic() + START_TIMEOUT
    while time.monotonic() < until and server.alive:
        if _accepts(server.port):
            return True
        time.sleep(0.05)
    return False


def start_redis(
    executable: str | None = None, *, password: str | None = None, port: int | None = None, tries: int = 3,
    tls: tuple[str, str] | None = None, hello: bool = True, debug_command: bool = False,
    options: Sequence[str] = (),
) -> RedisServer:
    """A redis-server that accepts connections, or a RedisServerError with its log. ``tls``:
    ``(certificate chain, key)`` files; the server then speaks TLS only, on its port.
    ``hello=False``: it does not know HELLO, as a server before Redis 6 (RESP2 only).
    ``debug_command``: DEBUG (SLEEP) is allowed from 127.0.0.1. ``options``: more
    command-line settings (``["--hz", "100"]``)."""
    executable = executable or shutil.which("redis-server")
    if executable is None:
        raise RedisServerError(NOT_INSTALLED)
    failure = ""
    for _ in range(tries):
        chosen = port or free_port()
        directory = tempfile.mkdtemp(prefix="dualio-redis-")
        args = [
            executable, "--save", "", "--appendonly", "no", "--port", str(chosen), "--bind", "127.0.0.1",
            "--dir", directory, "--logfile", "redis.log",
        ]
        if debug_command:
            args += ["--enable-debug-command", "local"]
        if password is not None:
            args += ["--requirepass", password]
        if not hello:
            args += ["--rename-command", "HELLO", ""]
        args += options
        if tls is not None:
            args += ["--port", "0", "--tls-port", str(chosen), "--tls-cert-file", tls[0],
                     "--tls-key-file", tls[1], "--tls-auth-clients", "no"]
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        server = RedisServer(process, chosen, directory, password)
        if _accepting(server):
            return server
        failure = f"redis-server on port {chosen} did not start (exit {process.poll()}):\n{server.log()}"
        server.stop()
        if port is not None:
            break
    raise RedisServerError(failure)


def start_cluster_node(options: Sequence[str] = ()) -> RedisServer:
    """A redis-server in cluster mode (``--cluster-enabled yes`` and ``options``) on a free
    port whose cluster bus port, 10,000 above, is free too: a port of 55,535 or less, as
    cluster mode requires."""
    rng = random.Random()
    for _ in range(20):
        port = rng.randrange(20000, 55536)
        if _bindable(port) and _bindable(port + 10000):
            try:
                return start_redis(port=port, options=["--cluster-enabled", "yes", *options])
            except RedisServerError:
                continue
    raise RedisServerError("no free port for a cluster node")


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def start_sentinel(
    primary: tuple[str, int], service_name: str = "mymaster", *, quorum: int = 2,
    down_after_ms: int = 1000, failover_timeout_ms: int = 10000, executable: str | None = None,
) -> RedisServer:
    """A Redis Sentinel (``redis-server CONF --sentinel``) on a free port, watching the
    primary at ``primary`` as ``service_name``: it judges it down after ``down_after_ms``
    of silence and, with ``quorum`` sentinels agreeing, promotes a replica. Sentinel
    rewrites its configuration file, so each has one of its own in its directory."""
    executable = executable or shutil.which("redis-server")
    if executable is None:
        raise RedisServerError(NOT_INSTALLED)
    failure = ""
    for _ in range(3):
        port = free_port()
        directory = tempfile.mkdtemp(prefix="dualio-sentinel-")
        config = Path(directory, "sentinel.conf")
        config.write_text(
            f"port {port}\nbind 127.0.0.1\ndir {directory}\nlogfile redis.log\n"
            f"sentinel monitor {service_name} {primary[0]} {primary[1]} {quorum}\n"
            f"sentinel down-after-milliseconds {service_name} {down_after_ms}\n"
            f"sentinel failover-timeout {service_name} {failover_timeout_ms}\n"
            f"sentinel parallel-syncs {service_name} 1\n"
        )
        process = subprocess.Popen([executable, str(config), "--sentinel"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        server = RedisServer(process, port, directory)
        if _accepting(server):
            return server
        failure = f"sentinel on port {port} did not start (exit {process.poll()}):\n{server.log()}"
        server.stop()
    raise RedisServerError(failure)
