"""Every script in examples/ runs, in a tiny configuration, and prints a table that adds up.

examples/locustfile.py is not a script but a file for Locust: tests/test_locust.py runs it
under ``locust --headless``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.redis_server import RedisServer, redis_server

__all__ = ["redis_server"]  # a fixture, used by name

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(script: str, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True, text=True, timeout=timeout, cwd=EXAMPLES.parent,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def ok(script: str, *args: str) -> str:
    result = run(script, *args)
    assert result.returncode == 0, f"{script} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def row(out: str, pattern: str) -> re.Match[str]:
    match = re.search(pattern, out, re.MULTILINE)
    assert match, f"no line matching {pattern!r} in:\n{out}"
    return match


TOUR = ("echo(b\"hello\")", "'SLOW'", "verified", "stats()", "round trip", "all 7 methods ok")


def test_hello_sync() -> None:
    out = ok("hello_sync.py", "--delay", "0.01", "--words", "3", "--blob-size", "5000")
    for text in (*TOUR, "alpha hotel oscar", "5000 bytes"):
        assert text in out


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("transport", ["native", "emulated"])
def test_hello_async(backend: str, transport: str) -> None:
    out = ok("hello_async.py", "--backend", backend, "--transport", transport,
             "--delay", "0.01", "--words", "3")
    for text in (*TOUR, f"on {backend}", "alpha hotel oscar"):
        assert text in out


def test_hello_against_a_given_server(server: ServerProcess) -> None:
    address = ("--host", server.host, "--port", str(server.port))
    assert f"-> {server.host}:{server.port}" in ok("hello_sync.py", "--delay", "0", *address)
    assert f"{server.host}:{server.port}" in ok("hello_async.py", "--delay", "0", *address)


def test_wordcount() -> None:
    out = ok("wordcount.py", "--connections", "6", "--count", "5", "--wait", "0.001")
    assert "mode" in out and "wall s" in out
    for mode in ("threads", "asyncio"):
        row(out, rf"^{mode}\s+[\d.]+\s+30\s+30\s+yes\s+")
        top = row(out, rf"^top 10 \({mode}\): (.*)$").group(1)
        assert top.split()[0] == "alpha=6" and len(top.split()) == 5  # words 0..4 are five distinct words


def test_wordcount_threaded_server() -> None:
    out = ok("wordcount.py", "-n", "3", "--count", "3", "--wait", "0", "--mode", "threads",
             "--server-model", "threaded")
    row(out, r"^threads\s+[\d.]+\s+9\s+9\s+yes")
    assert not re.search(r"^asyncio", out, re.MULTILINE)


def test_echo_100ms() -> None:
    out = ok("echo_100ms.py", "--requests", "20", "--delay", "0.02")
    for model in ("async", "threaded"):
        wall = float(row(out, rf"^{model}\s+([\d.]+)\s+20\s+0\s+").group(1))
        assert wall >= 0.02


def test_models() -> None:
    out = ok("models.py", "--calls", "3", "--delay", "0.02", "--exponent", "2000", "--processes", "1")
    assert "FAILED" not in out and "WRONG" not in out
    for model in ("sequential", r"threads \(3\)", r"processes \(1\)", "asyncio"):
        row(out, rf"^{model}\s+[\d.]+\s+[\d.]+\s+")
    io_seq = float(row(out, r"^sequential\s+[\d.]+\s+([\d.]+)").group(1))
    assert io_seq >= 3 * 0.02
    row(out, r"^gevent\s+(([\d.]+\s+[\d.]+)|(-\s+-\s.*skipped))")


def test_blob() -> None:
    out = ok("blob.py", "--requests", "6", "--concurrency", "3", "--size", "20000")
    for model in ("async", "threaded"):
        for client in ("threads", "asyncio"):
            row(out, rf"^{model}\s+{client}\s+[\d.]+\s+6\s+[\d.]+$")


def test_emulate_vs_native() -> None:
    out = ok("emulate_vs_native.py", "--calls", "20", "--seconds", "0.02")
    assert "20 concurrent sleep(0.02) calls" in out
    for mode in ("native", r"pool W=\d+ \(default executor\)", "pool W=50", "thread", "callback"):
        row(out, rf"^{mode}\s+[\d.]+\s+[\d.]+\s+[\d.]+$")


@pytest.mark.parametrize("clients", ["shared", "per-user"])
def test_restart_under_load(clients: str) -> None:
    out = ok("restart_under_load.py", "--users", "4", "--seconds", "2.5", "--restart-after", "0.8",
             "--down", "0.4", "--clients", clients, "--timeout", "5", "--attempts", "20")
    assert "result: OK" in out
    assert int(row(out, r"^calls ok\s+(\d+)$").group(1)) > 0
    assert int(row(out, r"^misrouted\s+(\d+)$").group(1)) == 0
    assert int(row(out, r"^lost\s+(\d+)$").group(1)) == 0
    # 20 attempts outlast a short outage: every call in flight at the kill is answered after a retry
    in_flight = row(out, r"^in flight when killed\s+(\d+)  \((\d+) answered after a retry, (\d+) failed\)$")
    assert 1 <= int(in_flight.group(1)) <= 4 and int(in_flight.group(3)) == 0
    assert int(row(out, r"^calls failed\s+(\d+)$").group(1)) == 0
    assert float(row(out, r"^first success after the return: ([\d.]+) s$").group(1)) < 2.5


@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("restart_under_load.py", ["--users", "0"]),
        ("restart_under_load.py", ["--seconds", "3", "--restart-after", "2", "--down", "1"]),
        ("hello_sync.py", ["--words", "0"]),
        ("hello_async.py", ["--delay", "-1"]),
        ("hello_async.py", ["--backend", "curio"]),
        ("wordcount.py", ["--connections", "0"]),
        ("wordcount.py", ["--wait", "-0.5"]),
        ("echo_100ms.py", ["--requests", "0"]),
        ("models.py", ["--calls", "-3"]),
        ("blob.py", ["--concurrency", "0"]),
        ("blob.py", ["--host", "127.0.0.1"]),
    ],
)
def test_bad_arguments_are_refused(script: str, args: list[str]) -> None:
    result = run(script, *args, timeout=30.0)
    assert result.returncode == 2
    assert "error:" in result.stderr


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_redis_work_queue(redis_server: RedisServer, backend: str) -> None:
    out = ok("redis_work_queue.py", "--port", str(redis_server.port), "--jobs", "60", "--backend", backend)
    assert row(out, r"^jobs taken once\s+(\d+)$").group(1) == "60"
    assert row(out, r"^jobs taken twice or more\s+(\d+)$").group(1) == "0"
    assert row(out, r"^jobs lost\s+(\d+)$").group(1) == "0"
    assert row(out, r"^results heard\s+(\d+)$").group(1) == "60"
