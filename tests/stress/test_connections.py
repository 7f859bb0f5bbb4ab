"""Connections that never get going, go quiet, or come too many: each costs the server a
bounded wait and one log line, never a spinning CPU or another client's latency."""

from __future__ import annotations

import resource
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trustme

from dualio_sync import Client, ConnectError, RemoteError
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import decode_error
from dualio_transports.dualio_protocol.frames import Frame, FrameKind
from dualio_transports.wire.errors import ErrorCode
from tests.conftest import ServerProcess, start_server
from tests.stress.probe import (
    HAVE_PROC,
    MIB,
    RawClient,
    Watch,
    connect,
    cpu_s,
    handshake,
    hello,
    read_frame,
    read_until_eof,
    request,
)

pytestmark = [pytest.mark.timeout(60), pytest.mark.skipif(not HAVE_PROC, reason="reads /proc")]

MODELS = ["async", "threaded"]


@contextmanager
def serving(*args: str, preexec_fn: Callable[[], object] | None = None) -> Iterator[ServerProcess]:
    server = start_server(*args, preexec_fn=preexec_fn)
    try:
        yield server
    finally:
        server.stop()


def lines_with(server: ServerProcess, mark: int, text: str) -> list[str]:
    return [line for line in server.log_since(mark) if text in line]


# -- the handshake deadline ------------------------------------------------------------

DEADLINE = 2.0
TOKEN = "t" * 1000  # a long HELLO, so trickling it outlasts the deadline


def trickle(sock: socket.socket, data: bytes, every: float = 0.5) -> float:
    """Send ``data`` a byte every ``every`` seconds until the server closes; returns when."""
    for byte in data:
        try:
            sock.sendall(bytes([byte]))
            sock.settimeout(every)
            if sock.recv(1) == b"":
                return time.monotonic()
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
            return time.monotonic()
    raise AssertionError("the server took the whole trickled HELLO")


def silent(sock: socket.socket, limit: float = 10.0) -> float:
    """Send nothing; returns when the server closed."""
    sock.settimeout(limit)
    try:
        sock.recv(1)
    except ConnectionResetError:
        pass
    return time.monotonic()


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, trustme.CA]:
    ca = trustme.CA()
    chain = tmp_path_factory.mktemp("tls") / "server.pem"
    ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(chain))
    return chain, ca


@pytest.mark.parametrize("use_tls", [False, True], ids=["tcp", "tls"])
@pytest.mark.parametrize("model", MODELS)
def test_trickled_handshake_is_closed_at_the_deadline(
    model: str, use_tls: bool, tls_files: tuple[Path, trustme.CA]
) -> None:
    """One byte every 0.5 s is no way around the handshake deadline: it counts from accept,
    TLS handshake included (was: an idle timeout on threaded, 60 s for async TLS)."""
    args = ["--model", model, "--handshake-timeout", str(DEADLINE)]
    context = None
    if use_tls:
        chain, ca = tls_files
        args += ["--tls-cert", str(chain)]
        context = ssl.create_default_context()
        ca.configure_trust(context)
    with serving(*args) as server, Watch(
        server, f"{model}{' TLS' if use_tls else ''}: 12 handshakes trickled or silent",
        rss_growth_mb=16, p99_s=0.5, tls=context,
    ) as watch:
        took: list[float] = []
        lock = threading.Lock()

        def attacker(kind: str) -> None:
            raw = connect(server)
            began = time.monotonic()
            sock: socket.socket = raw
            if kind == "tls-silent":  # stuck in the TLS handshake
                closed = silent(raw)
            else:
                if context is not None:  # TLS done at once, then the HELLO trickled inside it
                    sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
                closed = trickle(sock, hello(TOKEN))
            with lock:
                took.append(closed - began)
            sock.close()

        kinds = ["trickle"] * 6 + (["tls-silent"] * 6 if use_tls else ["trickle"] * 6)
        threads = [threading.Thread(target=attacker, args=(kind,)) for kind in kinds]
        for thread in threads:
            thread.start()
        watch.hold(DEADLINE + 1.0)
        for thread in threads:
            thread.join(10)
        print(f"[stress] {model}{' TLS' if use_tls else ''}: closed after "
              f"{min(took):.2f}..{max(took):.2f} s (deadline {DEADLINE} s)")
        assert len(took) == len(kinds)
        assert all(DEADLINE - 0.3 <= t <= DEADLINE + 1.0 for t in took), took


# -- the idle timeout ---------------------------------------------------------------

@pytest.mark.parametrize("model", MODELS)
def test_idle_connections_are_closed(model: str) -> None:
    """--idle-timeout 1: a quiet connection gets CLOSE after ~1 s; one with a request in
    flight is not idle; one that reads none of its answers is closed ~1 s after it stalled."""
    idle = 1.0
    with serving("--model", model, "--idle-timeout", str(idle)) as server, Watch(
        server, f"{model}: idle, busy and stalled connections, --idle-timeout 1", rss_growth_mb=48,
        p99_s=0.5,
    ) as watch:
        quiet = connect(server)
        handshake(quiet)
        quiet_since = time.monotonic()
        busy = connect(server)
        handshake(busy)
        busy.sendall(request(1, "sleep", methods.F64.pack(2.0)))
        stalled = connect(server, rcvbuf=64 * 1024)
        handshake(stalled)
        stalled.sendall(b"".join(request(rid, "blob", methods.U32.pack(4 * MIB) + methods.U32.pack(rid))
                                 for rid in range(1, 9)))
        stalled_since = time.monotonic()

        frames, closed = read_until_eof(quiet, 5.0)
        assert frames == [Frame(FrameKind.CLOSE, 0)]
        quiet_took = closed - quiet_since
        assert idle - 0.1 <= quiet_took <= idle + 1.0, quiet_took

        assert read_frame(busy) == (FrameKind.RESPONSE, 1, b"")  # not closed while sleeping
        answered = time.monotonic()
        frames, closed = read_until_eof(busy, 5.0)
        assert frames == [Frame(FrameKind.CLOSE, 0)]
        assert idle - 0.1 <= closed - answered <= idle + 1.0

        watch.hold(0.5)
        # The stalled peer now drains what the kernels held: then EOF, well before 4 MiB x 8.
        received = 0
        stalled.settimeout(5.0)
        while True:
            try:
                chunk = stalled.recv(1 << 20)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += len(chunk)
        stalled_took = time.monotonic() - stalled_since
        print(f"[stress] {model}: idle closed after {quiet_took:.2f} s; stalled reader closed, "
              f"{received / MIB:.1f} of 32 MiB had been sent")
        assert received < 24 * MIB
        assert stalled_took < idle + 4.0
        for sock in (quiet, busy, stalled):
            sock.close()
    lines = lines_with(server, 0, "closing")
    assert any("idle for 1s" in line for line in lines), lines
    assert any("read none of the answers" in line for line in lines), lines


# -- the connection cap -------------------------------------------------------------

@pytest.mark.parametrize("model", MODELS)
def test_connection_cap_refuses_with_busy(model: str) -> None:
    """--max-connections 20: the 21st connection gets ERROR id 0 BUSY and is closed; the
    log says so once, however many are refused; room made is used again."""
    with serving("--model", model, "--max-connections", "20") as server, Watch(
        server, f"{model}: 100 connections over --max-connections 20", rss_growth_mb=32, p99_s=0.5,
    ) as watch:
        mark = len(server.log)
        held = []
        for _ in range(19):  # the honest client is the 20th
            sock = connect(server)
            handshake(sock)
            held.append(sock)
        refused = 0
        for _ in range(100):
            sock = connect(server)
            sock.sendall(hello())
            frames, _ = read_until_eof(sock, 5.0)
            sock.close()
            assert len(frames) == 1 and frames[0].kind is FrameKind.ERROR and frames[0].id == 0, frames
            assert decode_error(frames[0].payload).code == ErrorCode.BUSY
            refused += 1
        with pytest.raises((RemoteError, ConnectError)) as info:
            Client(*server.address, connect_timeout=5)
        assert "BUSY" in str(info.value) or "limit" in str(info.value), info.value
        watch.hold(1.0)
        for sock in held[:5]:
            sock.close()
        deadline = time.monotonic() + 5
        while True:  # the threaded model frees a slot when the handler thread has ended
            try:
                fresh = RawClient(server, timeout=5)
                try:
                    assert fresh.echo(b"room again") == b"room again"
                finally:
                    fresh.close()
                break
            except (AssertionError, EOFError, OSError):
                assert time.monotonic() < deadline, "no room after closing connections"
                time.sleep(0.05)
        for sock in held[5:]:
            sock.close()
        busy_lines = lines_with(server, mark, "connection limit 20 reached")
        print(f"[stress] {model}: {refused} refused with BUSY, {len(busy_lines)} log line(s)")
        assert 1 <= len(busy_lines) <= 2, busy_lines


# -- out of file descriptors ----------------------------------------------------------

FD_LIMIT = 64


def low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


@pytest.mark.parametrize("model", MODELS)
def test_out_of_file_descriptors_does_not_spin(model: str) -> None:
    """With RLIMIT_NOFILE 64 and 100 connections, accept() fails with EMFILE: the server
    backs off (0.1 s doubling to 1 s) instead of retrying in a loop (was: 100% CPU threaded,
    53% async), logs it once, keeps serving its connections, and recovers."""
    with serving("--model", model, preexec_fn=low_fd_limit) as server, Watch(
        server, f"{model}: 100 connections with RLIMIT_NOFILE {FD_LIMIT}", rss_growth_mb=32, p99_s=0.5,
        cpu_share=0.15,
    ) as watch:
        mark = len(server.log)
        socks = []
        for _ in range(100):
            sock = connect(server)
            sock.sendall(hello())
            socks.append(sock)
        watch.wait(1.0)
        busy_cpu = watch.hold(3.0)
        paused = lines_with(server, mark, "accept paused")
        print(f"[stress] {model}: out of fds: CPU {busy_cpu:.0%} of a core, "
              f"{len(paused)} 'accept paused' line(s): {paused[:1]}")
        assert 1 <= len(paused) <= 2, paused
        assert f"open-files limit {FD_LIMIT}" in paused[0]
        for sock in socks:
            sock.close()
        began = time.monotonic()
        deadline = began + 10
        while True:
            try:
                fresh = RawClient(server, timeout=3)
                assert fresh.echo(b"recovered") == b"recovered"
                fresh.close()
                break
            except (AssertionError, EOFError, OSError):
                assert time.monotonic() < deadline, "the server did not accept again"
                time.sleep(0.1)
        print(f"[stress] {model}: accepting again {time.monotonic() - began:.2f} s after the fds were freed")


# -- cpu sanity for the helpers above --------------------------------------------------


@pytest.mark.alone  # a spinner must get most of a core
def test_cpu_probe_sees_a_busy_process() -> None:
    """cpu_s must notice a spinning process, or the 'does not spin' checks prove nothing."""
    import subprocess
    import sys

    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        before = cpu_s(spinner.pid)
        time.sleep(1.0)
        assert cpu_s(spinner.pid) - before > 0.5
    finally:
        spinner.kill()
        spinner.wait()


def test_a_threaded_server_waits_on_descriptors_past_1024() -> None:
    """A delayed reply on a connection whose descriptor is past FD_SETSIZE (1024): the
    threaded model's wait (which answers PINGs and CANCELs meanwhile) still works."""
    with serving("--model", "threaded") as server:
        held = []
        try:
            for _ in range(1030):  # each one a descriptor in the server
                held.append(socket.create_connection(server.address))
            with Client(*server.address, timeout=10) as client:
                assert client.upper("past the limit", delay=0.05) == "PAST THE LIMIT"
                assert client.stats().errors == 0
        finally:
            for sock in held:
                sock.close()
