"""Locust load tests with ``dualio.locust.DualioUser`` against the real server.

Every run is a process of its own: Locust monkey-patches the standard library for gevent
when it is imported, which must not happen to the process running the suite. What Locust
counted is checked against what the server says it served.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dualio_sync import Client
from tests.conftest import ServerProcess

if importlib.util.find_spec("locust") is None:  # not imported here: importing it patches this process
    pytest.skip("locust is not installed", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent

# argv: host, users, seconds. Prints one JSON line: what Locust counted, and how.
RUNNER = r"""
import locust  # first: it patches the standard library for gevent before dualio is imported
import json, sys, time
import gevent
from locust import constant, task
from locust.env import Environment
from locust.stats import StatsError
from dualio.locust import DualioUser

host, users, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
made = []

class Load(DualioUser):
    wait_time = constant(0.01)

    def __init__(self, environment):
        super().__init__(environment)
        made.append(self)

    def context(self):
        return {"load": "test"}

    @task(4)
    def echo(self):
        self.client.echo(b"p" * 100)

    @task(2)
    def upper(self):
        self.client.upper("quiet")

    @task(1)
    def sleep(self):
        self.client.sleep(0.05)

    @task(1)
    def blob(self):
        with self.named("blob 4 KiB"):
            self.client.blob(4096)
        self.client.ping()

contexts, user_errors = set(), []
env = Environment(user_classes=[Load], host=host, stop_timeout=10)
env.events.request.add_listener(lambda context, **_: contexts.add(json.dumps(context)))
env.events.user_error.add_listener(lambda user_instance, exception, tb: user_errors.append(repr(exception)))
runner = env.create_local_runner()
started = time.monotonic()
runner.start(users, spawn_rate=users)
gevent.spawn_later(seconds, runner.quit)
runner.greenlet.join()
print(json.dumps({
    "took": time.monotonic() - started,
    "users": len(made),
    "closed": sum(user.client.closed for user in made),
    "entries": [{"name": e.name, "method": e.method, "requests": e.num_requests, "failures": e.num_failures,
                 "bytes": e.total_content_length, "min_ms": e.min_response_time}
                for e in env.stats.entries.values()],
    "errors": [{"error": StatsError.parse_error(e.error), "occurrences": e.occurrences}
               for e in env.stats.errors.values()],
    "user_errors": user_errors,
    "contexts": sorted(contexts),
}))
"""


# Makes users without running them (no I/O: their clients connect on the first call).
SETTINGS = r"""
import locust
from locust.env import Environment
from locust.exception import LocustError
from dualio.locust import DualioUser

class User(DualioUser):
    pass

def made(host, **options):
    cls = type("Made", (User,), {"host": host, "dualio_options": options})
    client = cls(Environment(user_classes=[cls])).client
    return client.host, client.port, client.timeout, client._options.connect_timeout, client.closed

print(made("10.1.2.3:9"))
print(made("db.example"))
print(made("dualio://10.1.2.3:9?timeout=3&connect_timeout=1"))
print(made("dualio://10.1.2.3:9?timeout=3", timeout=7))
for host, options in ((None, {}), ("10.1.2.3:9", {"lazy": False}), ("10.1.2.3:9", {"on_response": print})):
    try:
        made(host, **options)
    except LocustError as exc:
        print("LocustError:", exc)
try:
    made("http://10.1.2.3:9")
except ValueError as exc:
    print("ValueError:", exc)
"""


def run_locust(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def load(host: str, users: int, seconds: float) -> dict[str, Any]:
    result = run_locust("-c", RUNNER, host, str(users), str(seconds))
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    report: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    report["stderr"] = result.stderr
    return report


def by_name(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in entries}


def served(client: Client) -> int:
    return client.stats().requests_served


def connections_back_to(client: Client, count: int) -> bool:
    """The server has closed every connection beyond ``count`` (it notices each close soon)."""
    deadline = time.monotonic() + 3
    while client.stats().connections_open != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_every_call_is_reported_and_the_server_agrees(server: ServerProcess) -> None:
    with Client(*server.address, timeout=10) as client:
        open_before, served_before = client.stats().connections_open, served(client)
        report = load(f"{server.host}:{server.port}", users=20, seconds=3)
        served_after = served(client)
        assert connections_back_to(client, open_before), "a user's connection was left open"
    entries = by_name(report["entries"])
    assert report["errors"] == [] and report["user_errors"] == [], report["stderr"]
    assert sorted(entries) == ["blob 4 KiB", "echo", "ping", "sleep", "upper"]
    assert all(entry["failures"] == 0 and entry["requests"] > 0 for entry in entries.values())
    assert {name: entries[name]["method"] for name in entries} == {
        "blob 4 KiB": "blob", "echo": "echo", "ping": "ping", "sleep": "sleep", "upper": "upper"}
    # A PING is a frame, not a request the server serves; the first stats() call is served.
    requests = sum(entry["requests"] for entry in entries.values())
    assert served_after - served_before == requests - entries["ping"]["requests"] + 1
    assert entries["blob 4 KiB"]["requests"] == entries["ping"]["requests"]  # one task makes both
    # Answer sizes in bytes (characters for upper); times in milliseconds.
    assert entries["echo"]["bytes"] == 100 * entries["echo"]["requests"]
    assert entries["blob 4 KiB"]["bytes"] == 4096 * entries["blob 4 KiB"]["requests"]
    assert entries["upper"]["bytes"] == len("QUIET") * entries["upper"]["requests"]
    assert entries["sleep"]["bytes"] == entries["ping"]["bytes"] == 0
    assert entries["sleep"]["min_ms"] >= 50
    assert report["contexts"] == ['{"load": "test"}']
    assert report["users"] == 20 and report["closed"] == 20
    assert report["took"] < 3 + 3


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port whose connections the kernel accepts and nobody ever answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        yield listener.getsockname()[1]


@pytest.mark.parametrize("where", ["closed port", "silent port"])
def test_an_unreachable_server_is_a_failure_never_a_hang(
    where: str, request: pytest.FixtureRequest
) -> None:
    if where == "closed port":
        host = f"127.0.0.1:{request.getfixturevalue('closed_port')}"
        why = "refused"
    else:  # the handshake never completes: the client's connect_timeout, from the URL, ends it
        host = f"dualio://127.0.0.1:{request.getfixturevalue('silent_port')}?connect_timeout=0.3"
        why = "did not answer the handshake in time"
    report = load(host, users=5, seconds=2)
    entries = report["entries"]
    requests = sum(entry["requests"] for entry in entries)
    assert requests > 0 and sum(entry["failures"] for entry in entries) == requests
    assert report["errors"], "no failure recorded"
    for error in report["errors"]:
        assert error["error"].startswith("RetriesExhausted(") and why in error["error"], error
    assert sum(error["occurrences"] for error in report["errors"]) == requests
    assert len(report["user_errors"]) == requests  # each failed call raised in its task
    assert report["took"] < 2 + 2.5, "the run did not end on time"
    assert report["users"] == 5 and report["closed"] == 5


def test_the_example_locustfile_from_the_command_line(server: ServerProcess) -> None:
    with Client(*server.address, timeout=10) as client:
        served_before = served(client)
        started = time.monotonic()
        result = run_locust(
            "-m", "locust", "-f", "examples/locustfile.py", "--headless", "-u", "20", "-r", "20",
            "-t", "5s", "--stop-timeout", "5", "--host", f"{server.host}:{server.port}", "--json",
        )
        took = time.monotonic() - started
        served_after = served(client)
    report = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, report  # Locust exits 1 when any request failed
    stats, _ = json.JSONDecoder().raw_decode(result.stdout, result.stdout.index("[\n"))
    entries = by_name(stats)
    assert sorted(entries) == ["blob 64 KiB", "echo", "upper"], report
    requests = sum(entry["num_requests"] for entry in entries.values())
    assert requests > 0 and sum(entry["num_failures"] for entry in entries.values()) == 0
    assert served_after - served_before == requests + 1
    blob = entries["blob 64 KiB"]
    assert blob["method"] == "blob" and blob["total_content_length"] == 65536 * blob["num_requests"]
    assert entries["echo"]["num_requests"] > entries["blob 64 KiB"]["num_requests"]  # weights 6:1
    assert took < 5 + 25  # the run, and starting Locust and gevent in a loaded process


def test_the_client_is_made_from_the_host_and_the_options() -> None:
    result = run_locust("-c", SETTINGS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "('10.1.2.3', 9, 10.0, 5.0, False)",  # the load-test defaults; no connection yet
        "('db.example', 7878, 10.0, 5.0, False)",
        "('10.1.2.3', 9, 3.0, 1.0, False)",  # the URL's keys over the defaults
        "('10.1.2.3', 9, 7.0, 5.0, False)",  # dualio_options over the URL
        "LocustError: no host to load: give --host dualio://HOST:PORT (or HOST:PORT), "
        "or set host on the user class",
        "LocustError: dualio_options cannot set lazy: DualioUser sets it",
        "LocustError: dualio_options cannot set on_response: DualioUser sets it",
        "ValueError: not a dualio:// URL: 'http://10.1.2.3:9'",
    ]


def test_without_locust_the_import_error_names_the_extra() -> None:
    result = run_locust("-c", "import sys; sys.modules['locust'] = None; import dualio.locust")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ImportError: dualio.locust needs Locust, which is not installed: pip install 'dualio[locust]'")


def test_the_suite_process_is_never_patched() -> None:
    """Locust runs in processes of their own: the one running the suite keeps its own
    threads and sockets (a patched one would turn every later test into greenlets)."""
    assert "locust" not in sys.modules
    monkey = sys.modules.get("gevent.monkey")
    assert monkey is None or not monkey.is_module_patched("socket")  # type: ignore[attr-defined]
