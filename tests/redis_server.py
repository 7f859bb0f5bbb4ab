"""A real redis-server for the Redis faces' tests: started on a free port of its own (Redis
cannot choose one), with nothing saved to disk, bounded in time, and stopped by its PID.

Tests that need it are skipped, with the reason, when redis-server is not installed.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

REDIS_SERVER = shutil.which("redis-server")
START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0
PASSWORD = "s3cret-for-tests"
NOT_INSTALLED = "redis-server is not installed (apt-get install redis-server)"


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
            with open(f"{self.directory}/redis.log", encoding="utf-8", errors="replace") as file:
                return file.read()
        except OSError:
            return ""

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


def start_redis(
    *, password: str | None = None, port: int | None = None, tries: int = 3,
    tls: tuple[str, str] | None = None, hello: bool = True,
) -> RedisServer:
    """A redis-server that accepts connections, or a RuntimeError with its log. ``tls``:
    ``(certificate chain, key)`` files; the server then speaks TLS only, on its port.
    ``hello=False``: it does not know HELLO, as a server before Redis 6 (RESP2 only)."""
    if REDIS_SERVER is None:
        raise RuntimeError(NOT_INSTALLED)
    failure = ""
    for _ in range(tries):
        chosen = port or free_port()
        directory = tempfile.mkdtemp(prefix="dualio-redis-")
        args = [
            REDIS_SERVER, "--save", "", "--appendonly", "no", "--port", str(chosen), "--bind", "127.0.0.1",
            "--dir", directory, "--logfile", "redis.log", "--enable-debug-command", "local",
        ]
        if not hello:
            args += ["--rename-command", "HELLO", ""]
        if tls is not None:
            args += ["--port", "0", "--tls-port", str(chosen), "--tls-cert-file", tls[0],
                     "--tls-key-file", tls[1], "--tls-auth-clients", "no"]
        if password is not None:
            args += ["--requirepass", password]
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        server = RedisServer(process, chosen, directory, password)
        until = time.monotonic() + START_TIMEOUT
        while time.monotonic() < until and process.poll() is None:
            if _accepts(chosen):
                return server
            time.sleep(0.05)
        failure = f"redis-server on port {chosen} did not start (exit {process.poll()}):\n{server.log()}"
        server.stop()
        if port is not None:
            break
    raise RuntimeError(failure)


def _started(password: str | None = None, hello: bool = True) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    server = start_redis(password=password, hello=hello)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A redis-server for the session (each xdist worker has its own)."""
    yield from _started()


@pytest.fixture(scope="session")
def redis_auth_server() -> Iterator[RedisServer]:
    """A redis-server that requires ``PASSWORD`` (``--requirepass``)."""
    yield from _started(PASSWORD)


@pytest.fixture(scope="session")
def redis_resp2_server() -> Iterator[RedisServer]:
    """A redis-server that refuses HELLO, as one before Redis 6 does."""
    yield from _started(hello=False)

