"""`dualio serve --workers N`, over real TCP with real processes: the workers share one
port and its connections; stats() adds up every worker's counters; a worker that dies is
replaced, and only its own clients notice; signals stop every process; a supervisor
killed outright leaves no worker behind; a worker that keeps dying ends the server."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from dualio.lab.bench import server_process
from dualio.lab.bench.server_process import ServerProcess as LabServer
from dualio.server.config import MAX_WORKERS
from dualio.server.workers import RESTART_LIMIT
from dualio_sync import Client, ClosedError, DualioError, ServerStats
from tests.conftest import ServerProcess, start_server

pytestmark = pytest.mark.timeout(60)

STARTED = re.compile(r"worker (\d+) started: pid (\d+)")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dualio", "serve", "--port", "0", *args],
                          capture_output=True, text=True, timeout=20)


def wait_until(condition: object, what: str, seconds: float = 10.0) -> None:
    assert callable(condition)
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.02)


def workers_started(server: ServerProcess) -> dict[int, int]:
    """Each worker slot's latest pid, from the supervisor's log."""
    slots: dict[int, int] = {}
    for line in list(server.log):
        found = STARTED.search(line)
        if found:
            slots[int(found[1])] = int(found[2])
    return slots


def worker_pids(server: ServerProcess, count: int) -> dict[int, int]:
    wait_until(lambda: len(workers_started(server)) == count, f"{count} workers in the log")
    return workers_started(server)


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def two_workers() -> Iterator[ServerProcess]:
    server = start_server("--workers", "2")
    yield server
    server.stop()


# -- one port, many processes ----------------------------------------------------------


@pytest.mark.parametrize("model", ["async", "threaded", "sequential"])
def test_the_workers_share_the_connections_and_stats_adds_them_up(model: str) -> None:
    server = start_server("--workers", "2", "--model", model)
    try:
        pids = set(worker_pids(server, 2).values())
        connections, calls = 24, 5
        answered_by = []
        for i in range(connections):  # one at a time: the sequential model serves one each
            with Client(*server.address, retry=None, timeout=5) as client:
                stats = client.stats()
                answered_by.append(stats.pid)
                assert stats.workers == 2
                for j in range(calls):
                    assert client.echo(b"%d.%d" % (i, j)) == b"%d.%d" % (i, j)
        assert set(answered_by) == pids  # both workers served, and nothing else did
        assert server.process.pid not in answered_by
        with Client(*server.address, retry=None, timeout=5) as client:
            # Each stats() answer counts the calls answered before it, on every worker (a
            # blocking model counts a call once its answer is sent: give it a moment).
            polls = 0

            def settled() -> bool:
                nonlocal polls
                stats = client.stats()
                others = stats.requests_served - polls
                polls += 1
                return others == connections * (1 + calls) and stats.connections_open == 1

            wait_until(settled, "every call counted, every closed connection too")
            total = client.stats()
            assert total.connections_total == connections + 1
            assert total.requests_in_flight == 0 and total.errors == 0
    finally:
        assert server.stop() == 0
    assert not [line for line in server.log if "Traceback" in line], server.log


def test_a_shared_socket_serves_a_cluster_of_sequential_servers() -> None:
    # One listening socket, accepted from by both workers: while one worker holds a
    # connection, the next connection can only be the other worker's.
    server = start_server("--workers", "2", "--model", "sequential", "--shared-socket")
    try:
        pids = set(worker_pids(server, 2).values())
        with Client(*server.address, retry=None, timeout=5) as first, \
                Client(*server.address, retry=None, timeout=5) as second:
            seen = {first.stats().pid, second.stats().pid}
            assert seen == pids
            assert first.echo(b"one") == b"one" and second.echo(b"two") == b"two"
            polls: list[int] = []

            def all_counted() -> bool:
                # four calls, and every poll before this one (each is a call too)
                polls.append(second.stats().requests_served)
                return polls[-1] == 4 + len(polls) - 1

            wait_until(all_counted, "every call counted (a worker counts a call after sending its answer)")
    finally:
        assert server.stop() == 0


# -- supervision -----------------------------------------------------------------------


def test_a_killed_worker_is_replaced_and_only_its_clients_notice(two_workers: ServerProcess) -> None:
    server = two_workers
    slots = worker_pids(server, 2)
    stats_calls = 0

    def stats(client: Client) -> ServerStats:
        nonlocal stats_calls
        stats_calls += 1
        return client.stats()

    plain = [Client(*server.address, retry=None, timeout=5) for _ in range(16)]
    retrying = [Client(*server.address, timeout=5) for _ in range(16)]
    clients = plain + retrying
    home = [stats(client).pid for client in clients]
    victim_slot, victim = next((slot, pid) for slot, pid in slots.items() if pid == home[0])
    on_victim = [i for i, pid in enumerate(home) if pid == victim]
    assert 0 < len([i for i in on_victim if i < len(plain)]) < len(plain), home
    assert [i for i in on_victim if i >= len(plain)], home
    stop = threading.Event()
    served = [0] * len(clients)
    failures: list[list[BaseException]] = [[] for _ in clients]

    def load(index: int) -> None:
        client = clients[index]
        while not stop.is_set():
            try:
                assert client.echo(b"load", delay=0.005) == b"load"
            except DualioError as exc:
                failures[index].append(exc)
                return
            served[index] += 1

    threads = [threading.Thread(target=load, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: all(served), "every client served")
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: workers_started(server)[victim_slot] != victim, "a new worker")
        time.sleep(0.3)  # the load goes on, on the survivor and the new worker
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    for index in range(len(clients)):
        if index < len(plain) and index in on_victim:  # no retry: the loss is the caller's to see
            assert failures[index], f"client {index} saw nothing of its worker's death"
            assert isinstance(failures[index][0], ClosedError), failures[index]
        else:  # the other worker's clients, and those that reconnect and retry
            assert failures[index] == [], (index, failures[index])
    assert any(f"worker {victim_slot} (pid {victim}) killed by SIGKILL" in line for line in server.log)

    replacement = workers_started(server)[victim_slot]
    assert running(replacement) and not running(victim)
    seen: set[int] = set()
    for _ in range(200):  # new connections reach the new worker
        with Client(*server.address, retry=None, timeout=5) as client:
            seen.add(stats(client).pid)
        if replacement in seen:
            break
    assert replacement in seen and victim not in seen
    for client in clients:
        client.close()
    with Client(*server.address, retry=None, timeout=5) as client:
        # The dead worker's connections are no longer counted open...
        wait_until(lambda: stats(client).connections_open == 1, "the dead worker's gauges reset")
        total = client.stats().requests_served  # every call before this one
    # ... and what it served still counts: every answered call, plus at most one call per
    # connection it dropped that it served without the answer reaching its client.
    answered = sum(served) + stats_calls
    dropped = sum(len(failure) for failure in failures) + len(on_victim)
    assert answered <= total <= answered + dropped, (answered, total, dropped)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_supervisor_stops_every_process(sig: signal.Signals) -> None:
    server = start_server("--workers", "2")
    pids = list(worker_pids(server, 2).values())
    with Client(*server.address, retry=None, timeout=5) as client:
        assert client.echo(b"up") == b"up"
        server.process.send_signal(sig)
        assert server.process.wait(10) == 0
    assert not [pid for pid in pids if running(pid)]
    wait_until(lambda: "stopped" in server.log, "stopped in the log")
    with pytest.raises(OSError):
        socket.create_connection(server.address, timeout=2).close()


def test_workers_of_a_killed_supervisor_stop(two_workers: ServerProcess) -> None:
    server = two_workers
    pids = list(worker_pids(server, 2).values())
    server.process.kill()
    server.process.wait()
    wait_until(lambda: not [pid for pid in pids if running(pid)], "the workers gone", seconds=8)
    with pytest.raises(OSError):
        socket.create_connection(server.address, timeout=2).close()


def test_a_worker_that_keeps_dying_ends_the_server(two_workers: ServerProcess) -> None:
    server = two_workers
    pids = worker_pids(server, 2)
    other = pids[1]
    for death in range(RESTART_LIMIT + 1):
        pid = workers_started(server)[0]
        os.kill(pid, signal.SIGKILL)
        if death < RESTART_LIMIT:
            wait_until(lambda pid=pid: workers_started(server)[0] != pid,
                       f"restart {death + 1}")
    assert server.process.wait(15) == 1
    wait_until(lambda: any("giving up" in line for line in server.log), "the reason in the log")
    restarts = [line for line in server.log if "restarting it in" in line]
    delays = [float(line.rsplit(" in ", 1)[1].split()[0]) for line in restarts]
    assert delays == [0.0, 0.1, 0.2, 0.4, 0.8]  # backing off, not spinning
    assert not running(other)


# -- the lab's handle on such a server --------------------------------------------------


def test_the_lab_starts_and_measures_a_server_of_workers() -> None:
    with LabServer(workers=2) as server:
        supervisor, *workers = server.pids()
        assert len(workers) == 2
        before = server.cpu_seconds()
        seen: set[int] = set()
        for _ in range(24):
            with Client(server.host, server.port, retry=None, timeout=5) as client:
                seen.add(client.stats().pid)
                for _ in range(200):
                    client.echo(b"x")
        assert seen == set(workers)
        after = server.cpu_seconds()
        assert before is not None and after is not None and after > before
        rss = server.rss_bytes()
        with open(f"/proc/{supervisor}/status", encoding="ascii") as status:
            alone = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) * 1024
        assert rss is not None and rss > 2 * alone  # the workers' memory too
    assert not [pid for pid in (supervisor, *workers) if running(pid)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the CPU-time clock of another process")
def test_the_lab_reads_a_processs_cpu_time_to_the_nanosecond_with_its_ended_threads() -> None:
    """A process that spends CPU in a thread that then ends: the clock counts that thread,
    agrees with the kernel's tick count, and has digits below the tick."""
    burn = ("import threading, time\n"
            "def spin():\n"
            "    end = time.thread_time() + 0.3\n"
            "    while time.thread_time() < end: pass\n"
            "t = threading.Thread(target=spin); t.start(); t.join()\n"
            "print('done', flush=True); time.sleep(30)\n")
    child = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "done\n"
        clock = server_process._clock_seconds(child.pid)
        with open(f"/proc/{child.pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        assert clock is not None and clock >= 0.3
        assert abs(clock - ticks) <= 0.05
        assert server_process.cpu_seconds(child.pid, reaped=False) == pytest.approx(clock, abs=0.01)
        assert round(clock * 1e9) % 10_000_000 != 0  # finer than a 10 ms tick
    finally:
        child.kill()
        child.wait()
        child.stdout.close()  # type: ignore[union-attr]
    assert server_process._clock_seconds(child.pid) is None  # gone: no clock, no error


# -- bad options -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--workers", "0"), f"--workers must be in 1..{MAX_WORKERS}, got 0"),
        (("--workers", "-3"), f"--workers must be in 1..{MAX_WORKERS}, got -3"),
        (("--workers", str(MAX_WORKERS + 1)), f"--workers must be in 1..{MAX_WORKERS}, got 65"),
        (("--shared-socket",), "--shared-socket needs --workers 2 or more"),
    ],
    ids=["zero", "negative", "too-many", "shared-socket-alone"],
)
def test_bad_worker_options_are_one_line_and_exit_2(args: tuple[str, ...], says: str) -> None:
    out = run_cli(*args)
    assert out.returncode == 2, out
    assert out.stderr.strip() == f"dualio serve: {says}", out.stderr


def test_a_port_in_use_is_one_line_and_exit_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = run_cli("--port", str(port), "--workers", "2")
    assert out.returncode == 1, out
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


# -- the wire: the added keys are optional both ways ------------------------------------


def test_stats_without_the_added_keys_read_and_encode_as_before() -> None:
    counters = {"connections_open": 1, "connections_total": 2, "requests_in_flight": 0,
                "requests_served": 5, "errors": 0}
    old = json.dumps(counters).encode()
    stats = ServerStats.from_json(old)
    assert (stats.workers, stats.pid) == (1, 0)
    assert stats.to_json() == old  # a single process that does not say its pid: as before
    newer = ServerStats.from_json(json.dumps({**counters, "workers": 3, "pid": 77, "later": 1}).encode())
    assert (newer.workers, newer.pid, newer.requests_served) == (3, 77, 5)
    assert json.loads(newer.to_json()) == {**counters, "workers": 3, "pid": 77}
