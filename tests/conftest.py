"""Fixtures: the real reference server, started as a separate process over real TCP."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass
class ServerProcess:
    """A ``dualio serve`` child process; ``log`` collects its stderr lines."""

    process: subprocess.Popen[str]
    host: str
    port: int
    log: list[str] = field(default_factory=list)

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    def log_since(self, mark: int) -> list[str]:
        return self.log[mark:]

    def stop(self) -> int:
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    return self.process.wait(10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    return self.process.wait()
            return self.process.returncode
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()  # read for its first line only; stderr is the pump's


_STARTED: list[subprocess.Popen[str]] = []

SERIAL = ("perf", "stress")
"""Folders of tests that measure or load the machine: they run after the rest, never
beside its tests. make test runs the instruction gate (which counts instructions, the same
under any load) beside the stress tests (which mostly wait), and the tests marked
``alone`` (they measure time) after everything else, on an idle machine."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "serial: runs after the rest, never beside its tests (perf, stress)")
    config.addinivalue_line("markers", "alone: measures time; runs last, on an idle machine (implies serial)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent.name in SERIAL or item.get_closest_marker("alone") is not None:
            item.add_marker(pytest.mark.serial)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What is imported and collected stays for the whole run: out of the collector's way.
    Otherwise each full collection walks it, a pause of up to half a second in a worker of
    the parallel step (measured with gc.callbacks), and a stall of that length inside a
    case that times a call reads as a call that overran its timeout."""
    gc.freeze()


SPREAD_FOLDER = "contract"
"""The folder whose tests are independent one by one: each makes its own clients, and its
servers are its own, its module's or the session's."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadscope`` with this suite's scopes: a file, but for the contract suite,
    whose tests are spread over the workers one by one. Most of them wait on a timeout or
    a server, so a file of them on one worker would be the run's long pole; every other
    file stays whole on one worker, its module fixtures (a built wheel, a lab run, the
    docs' server on its fixed port) made once. It overrides xdist's private
    ``_split_scope``: pyproject.toml keeps pytest-xdist below 4."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ContractSpread(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if Path(path).parent.name == SPREAD_FOLDER else path

    return ContractSpread(config, log)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No server outlives the test run, even one whose test failed before stopping it."""
    for process in _STARTED:
        if process.poll() is None:
            process.kill()
            process.wait()


def start_server(
    *args: str, host: str = "127.0.0.1", preexec_fn: Callable[[], object] | None = None
) -> ServerProcess:
    """Start ``python -m dualio serve --port 0 ARGS`` and wait for its ``listening on`` line.

    ``preexec_fn`` runs in the child before the server starts (to lower its limits, say).
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "dualio", "serve", "--host", host, "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=preexec_fn,
    )
    _STARTED.append(process)
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError(f"server did not start: {line!r} {process.stderr.read()}")
    bound = line.split()[-1]
    port = int(bound.rsplit(":", 1)[1])
    server = ServerProcess(process, host, port)
    stderr = process.stderr

    def pump() -> None:
        with stderr:  # closed at its end, when the server has exited
            for text in stderr:
                server.log.append(text.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return server


@pytest.fixture(scope="session")
def server() -> Iterator[ServerProcess]:
    """One async-model server shared by the whole session."""
    proc = start_server()
    yield proc
    assert proc.stop() == 0


@pytest.fixture(scope="session")
def threaded_server() -> Iterator[ServerProcess]:
    proc = start_server("--model", "threaded")
    yield proc
    assert proc.stop() == 0


@pytest.fixture(params=["async", "threaded"])
def any_server(
    request: pytest.FixtureRequest, server: ServerProcess, threaded_server: ServerProcess
) -> ServerProcess:
    return server if request.param == "async" else threaded_server
