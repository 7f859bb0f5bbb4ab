"""``dualio bench`` end to end in tiny configurations, and its answers to bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dualio.lab.bench.server_process import ServerProcess as LabServer
from dualio_sync import Client
from tests.conftest import ServerProcess


def bench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dualio", "bench", *args], cwd=cwd, capture_output=True,
        text=True, timeout=240,
    )


def test_a_small_run_writes_checked_results(tmp_path: Path) -> None:
    run = bench("--scenario", "fanout,overhead", "--ns", "5,20", "--delay", "0.02",
                "--modes", "sync,threads,emulated-pool,emulated-callback,native-asyncio,"
                "asyncio.to_thread,asyncio-protocol", "--quick", "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [folder] = tmp_path.glob("bench-*")
    data = json.loads((folder / "results.json").read_text())
    cells = data["cells"]
    fanout = [c for c in cells if c["scenario"] == "fanout"]
    assert {c["mode"] for c in fanout} >= {"sync", "threads", "native-asyncio", "emulated-pool"}
    assert all(c["errors"] == 0 and c["wrong"] == 0 for c in cells)
    pool = next(c for c in fanout if c["mode"] == "emulated-pool" and c["total"] == 20)
    assert pool["model_s"] == pytest.approx(4 * 0.02)  # ceil(20 / 6) * Y on the default executor
    assert (folder / "fanout.png").stat().st_size > 10_000
    assert "fanout" in run.stdout and "Goals" in run.stdout
    overhead = [c for c in cells if c["scenario"] == "overhead"]
    assert overhead and all(c["client_cpu_us"] > 0 for c in overhead)  # the client's own CPU per call
    assert all(c["server_cpu_us"] is None or c["server_cpu_us"] >= 0 for c in cells)


def test_against_a_running_server(server: ServerProcess, tmp_path: Path) -> None:
    run = bench("--host", server.host, "--port", str(server.port), "--scenario", "throughput",
                "--modes", "sync,raw-socket,native-asyncio", "--quick", "--out", str(tmp_path),
                cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "sync sequential vs raw blocking socket" in run.stdout


def test_the_portal_is_measured_beside_anyio_and_synchronicity(server: ServerProcess, tmp_path: Path) -> None:
    """The anchors run the native AsyncClient through their own loop thread, in the same run
    as the portal; the fan-out shows what N threads cost by themselves; the goals compare."""
    modes = "portal,anyio-portal,synchronicity,portal-threads,anyio-portal-threads,synchronicity-threads"
    run = bench("--host", server.host, "--port", str(server.port), "--scenario", "throughput,overhead,fanout",
                "--modes", modes, "--ns", "20", "--delay", "0.02", "--quick", "--repeat", "1",
                "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [folder] = tmp_path.glob("bench-*")
    cells = json.loads((folder / "results.json").read_text())["cells"]
    assert all(c["errors"] == 0 and c["wrong"] == 0 for c in cells), [c["note"] for c in cells]
    measured = {(c["scenario"], c["case"].split()[0], c["mode"]) for c in cells if c["wall_s"]}
    for mode in modes.split(","):
        assert ("throughput", "sequential", mode) in measured
        assert ("fanout", "N=20", mode) in measured
    for mode in ("portal", "anyio-portal", "synchronicity"):
        assert ("overhead", "zero-delay", mode) in measured
    for mode in ("portal-threads", "anyio-portal-threads", "synchronicity-threads"):
        assert ("throughput", "concurrent", mode) in measured
    floor = next(c for c in cells if c["mode"] == "thread-floor")
    assert floor["wall_s"] >= 0.02 and floor["model_s"] is None
    for mode in ("portal-threads", "anyio-portal-threads", "synchronicity-threads"):
        fanned = next(c for c in cells if c["scenario"] == "fanout" and c["mode"] == mode)
        assert fanned["model_s"] > floor["wall_s"]  # F + N·c, F from the same round
    for anchor in ("anyio-portal", "synchronicity"):
        assert f"portal sequential time vs {anchor}" in run.stdout
    assert "portal-threads fan-out measured/model" in run.stdout


def test_the_reference_server_is_measured_against_the_minimal_server(tmp_path: Path) -> None:
    """The lab starts both servers; each case has the server's CPU per request on each, and
    the goals compare them round by round. The floor server counts nothing, so its cells
    are checked by the client only (every answer is compared with what was sent)."""
    run = bench("--scenario", "server", "--quick", "--repeat", "1", "--no-pin", "--out", str(tmp_path),
                cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [folder] = tmp_path.glob("bench-*")
    results = json.loads((folder / "results.json").read_text())
    cells = results["cells"]
    assert {(c["case"].split()[0], c["server"]) for c in cells} == {
        (case, server) for case in ("sequential", "concurrent") for server in ("async", "floor")}
    assert all(c["errors"] == 0 and c["wrong"] == 0 and c["server_cpu_us"] > 0 for c in cells), cells
    assert set(results["meta"]["servers"]) == {"async", "floor"}
    for case in ("sequential", "concurrent"):
        assert f"server CPU per request vs minimal server ({case})" in run.stdout
        assert f"not measured server CPU per request vs minimal server ({case})" not in run.stdout


def test_the_minimal_server_answers_the_sdk_too() -> None:
    """The floor speaks enough of the protocol for the SDK's own clients (echo only)."""
    with LabServer("peer") as floor, Client(floor.host, floor.port, timeout=5) as client:
        assert client.echo(b"floor") == b"floor"
        assert client.echo(b"later", delay=0.05) == b"later"


def test_connection_set_up_is_measured_in_client_cpu_against_the_raw_peers(
    server: ServerProcess, tmp_path: Path,
) -> None:
    """Each call of the set-up scenario is a connection of its own; the server sees one
    handshake per call, and every mode, the raw peers included, has its client CPU."""
    modes = "sync,portal,native-asyncio,asyncio-protocol,raw-socket"
    with Client(*server.address) as client:
        before = client.stats()
    run = bench("--host", server.host, "--port", str(server.port), "--scenario", "setup", "--modes", modes,
                "--quick", "--repeat", "1", "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [folder] = tmp_path.glob("bench-*")
    cells = json.loads((folder / "results.json").read_text())["cells"]
    assert {c["mode"] for c in cells} == set(modes.split(","))
    assert all(c["errors"] == 0 and c["wrong"] == 0 and c["client_cpu_us"] > 0 for c in cells)
    with Client(*server.address) as client:
        after = client.stats()
    made = after.connections_total - before.connections_total - 1  # the stats client
    assert made >= 5 * 300  # a connection per call, the warm-up's besides
    assert "connection set-up client CPU, native-asyncio vs asyncio-protocol" in run.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--scenario", "nope"], "unknown scenario nope"),
    (["--modes", "warp-drive"], "unknown mode warp-drive"),
    (["--ns", "10,0"], "every N in --ns must be > 0"),
    (["--ns", "ten"], "--ns must be comma-separated integers"),
    (["--pool-workers", "0"], "--pool-workers must be >= 1"),
    (["--server-model", "async,nope"], "unknown server set-up nope"),
    (["--host", "127.0.0.1", "--port", "1"], "cannot reach the server"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    run = bench(*args, "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_a_server_that_dies_mid_run_is_reported_loudly(tmp_path: Path) -> None:
    from tests.conftest import start_server

    proc = start_server()
    script = (
        "import sys, threading, os, signal\n"
        "from dualio.cli import main\n"
        f"threading.Timer(1.0, lambda: os.kill({proc.process.pid}, signal.SIGKILL)).start()\n"
        f"sys.exit(main(['bench', '--host', '127.0.0.1', '--port', '{proc.port}',"
        " '--scenario', 'fanout', '--ns', '50,100', '--delay', '0.5', '--modes',"
        f" 'emulated-pool,native-asyncio', '--out', r'{tmp_path}']))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    proc.process.wait(5)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "LOST OR MISROUTED" in run.stderr
    assert "Traceback" not in run.stderr
    [folder] = tmp_path.glob("bench-*")
    assert json.loads((folder / "results.json").read_text())["cells"]  # partial results kept


def test_the_lab_takes_a_refused_connection_for_a_gone_server_at_once() -> None:
    """A refused connection means nothing listens on the port: asking again for the
    patience (a minute) would only delay the report that the server is gone."""
    import socket
    import time

    from dualio.lab.bench.command import server_stats
    from dualio_sync import ConnectError

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = Client("127.0.0.1", port, lazy=True)
    started = time.monotonic()
    with pytest.raises(ConnectError, match="refused"):
        server_stats(client, each=2.0, patience=60.0)
    assert time.monotonic() - started < 30.0
    client.close()


def test_a_connect_error_that_is_its_own_cause_is_not_a_refusal() -> None:
    """A transport may raise a ConnectError from itself: following the causes ends."""
    from dualio.lab.bench.command import _refused
    from dualio_sync import ConnectError, RetriesExhausted

    looped = ConnectError("cannot connect")
    looped.__cause__ = looped
    assert not _refused(looped)
    refused = ConnectError("cannot connect")
    refused.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert _refused(RetriesExhausted("gave up", 2, [looped, refused]))
    assert not _refused(RetriesExhausted("gave up", 2, [refused, looped]))


def test_serve_rejects_a_bad_port() -> None:
    run = subprocess.run([sys.executable, "-m", "dualio", "serve", "--port", "70000"],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert "--port must be in 0..65535" in run.stderr


def test_client_cost_measures_both_faces_against_the_fake_peer(capsys: pytest.CaptureFixture[str]) -> None:
    from dualio.lab.instructions import client_cost

    assert client_cost.main(["--calls", "300", "--rounds", "2", "--in-flight", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0].strip() for line in lines[2:]] == [
        "sync", "native, sequential", "native, 10 in flight"
    ]
    for line in lines[2:]:
        medians = [float(part.split("(")[0]) for part in line[28:].split(")")[:3]]
        assert medians[0] > 0 and medians[1] > 0, line  # raw, dualio


@pytest.mark.parametrize("args", [["--calls", "5", "--in-flight", "10"], ["--rounds", "0"]])
def test_client_cost_refuses_bad_sizes(args: list[str]) -> None:
    from dualio.lab.instructions import client_cost

    with pytest.raises(SystemExit) as info:
        client_cost.main(args)
    assert info.value.code == 2


def test_a_server_the_lab_started_that_dies_is_started_again(tmp_path: Path) -> None:
    """The lab's own server is killed in the middle of a run: the lab starts it again, the
    cells say so, and the cells after it are measured against the new server."""
    script = (
        "import os, signal, sys, threading\n"
        "from dualio.cli import main\n"
        "from dualio.lab.bench import server_process\n"
        "start = server_process.ServerProcess.start\n"
        "started = []\n"
        "def first_killed(self):\n"
        "    result = start(self)\n"
        "    if not started:\n"
        "        threading.Timer(1.0, os.kill, (self.pid, signal.SIGKILL)).start()\n"
        "    started.append(self.pid)\n"
        "    return result\n"
        "server_process.ServerProcess.start = first_killed\n"
        "code = main(['bench', '--scenario', 'fanout', '--ns', '50,100,200,300,400', '--delay', '0.5',"
        f" '--modes', 'native-asyncio', '--repeat', '1', '--out', r'{tmp_path}'])\n"
        "print('servers started:', len(started))\n"
        "sys.exit(code)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=180, cwd=tmp_path)
    assert "Traceback" not in run.stderr, run.stderr
    assert "started again" in run.stderr, run.stdout + run.stderr
    assert "servers started: 2" in run.stdout, run.stdout + run.stderr
    [folder] = tmp_path.glob("bench-*")
    cells = json.loads((folder / "results.json").read_text())["cells"]
    notes = [str(cell.get("note") or "") for cell in cells]
    assert any("started again" in note for note in notes), notes
    assert not cells[-1].get("errors"), cells[-1]  # measured against the new server
