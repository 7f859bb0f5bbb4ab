"""What the stress tests measure, and the raw-socket attackers they use.

The server runs as a separate process; its memory (VmRSS) and CPU time (utime + stime)
are read from /proc. A well-behaved client (``Honest``) calls ``echo`` on its own
thread the whole time an attack runs, and its latencies give the p99 each test bounds.

``Watch`` puts the three together around one attack and prints one line per test
(``pytest -s tests/stress`` shows them; set DUALIO_STRESS_REPORT=path to append them to
a file too).
"""

from __future__ import annotations

import os
import socket
import ssl
import struct
import sys
import threading
import time
from types import TracebackType

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import ClientProtocol
from dualio_transports.dualio_protocol.frames import Frame, FrameDecoder, FrameKind, encode_frame
from tests.conftest import ServerProcess

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
HAVE_PROC = os.path.exists("/proc/self/stat")
"""The measurements read /proc: Linux only."""
MIB = 1 << 20


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used, all its threads."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class RawClient:
    """A well-behaved client on a raw socket: one call at a time, ids counting up.

    The stress tests measure the server, so their honest client is as thin as a client
    can be (no SDK in the way of the latency it reports)."""

    def __init__(self, server: ServerProcess, token: str | None = None,
                 tls: ssl.SSLContext | None = None, timeout: float = 30.0) -> None:
        sock = connect(server, timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls is not None:
            sock = tls.wrap_socket(sock, server_hostname=server.host)
        self.sock = sock
        self._next = 0
        try:
            handshake(sock, token)
        except BaseException:  # refused (BUSY), or no answer: the socket is not left open
            sock.close()
            raise

    def call(self, method: str, args: bytes) -> Frame:
        self._next += 1
        self.sock.sendall(request(self._next, method, args))
        frame = read_frame(self.sock)
        assert frame.id == self._next, frame
        return frame

    def echo(self, payload: bytes) -> bytes:
        frame = self.call("echo", methods.F64.pack(0.0) + payload)
        assert frame.kind is FrameKind.RESPONSE, frame
        return frame.payload

    def stats(self) -> methods.ServerStats:
        frame = self.call("stats", b"")
        assert frame.kind is FrameKind.RESPONSE, frame
        return methods.ServerStats.from_json(frame.payload)

    def close(self) -> None:
        try:
            self.sock.sendall(encode_frame(FrameKind.CLOSE, 0))
        except OSError:
            pass
        self.sock.close()


class Honest(threading.Thread):
    """A well-behaved client: one small echo every ``interval`` seconds, on a connection
    opened before the attack; every latency and every failure is recorded."""

    def __init__(self, server: ServerProcess, token: str | None = None, interval: float = 0.01,
                 tls: ssl.SSLContext | None = None) -> None:
        super().__init__(daemon=True, name="honest-client")
        self.client = RawClient(server, token=token, tls=tls)
        assert self.client.echo(b"warm-up") == b"warm-up"
        self.interval = interval
        self.latencies: list[float] = []
        self.failures: list[BaseException] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()

    def run(self) -> None:
        payload = b"honest"
        while not self.stopping.is_set():
            started = time.perf_counter()
            try:
                with self._lock:
                    answer = self.client.echo(payload)
            except Exception as exc:
                self.failures.append(exc)
                return
            self.latencies.append(time.perf_counter() - started)
            if answer != payload:
                self.failures.append(AssertionError(f"wrong answer {answer!r}"))
            self.stopping.wait(self.interval)

    def stats(self) -> methods.ServerStats:
        """The server's counters, on the honest connection (between two echoes)."""
        with self._lock:
            return self.client.stats()

    def stop(self) -> None:
        self.stopping.set()
        self.join(40)
        self.client.close()


class Sampler(threading.Thread):
    """The server's RSS every 50 ms; ``peak`` is the largest seen."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True, name="rss-sampler")
        self.pid = pid
        self.peak = rss_mb(pid)
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.05):
            try:
                self.peak = max(self.peak, rss_mb(self.pid))
            except (OSError, RuntimeError):
                return

    def stop(self) -> None:
        self.stopping.set()
        self.join(5)
        try:
            self.peak = max(self.peak, rss_mb(self.pid))
        except (OSError, RuntimeError):
            pass


class Watch:
    """Around one attack: server RSS before and at its peak, the honest client's p99,
    and the server's CPU share over the ``hold`` windows the test asks for.

    The bounds are checked on a clean exit: RSS growth under ``rss_growth_mb``, p99 under
    ``p99_s`` and not one failed honest call, the CPU share in every ``hold`` under
    ``cpu_share`` (of one core).
    """

    def __init__(self, server: ServerProcess, name: str, *, rss_growth_mb: float, p99_s: float,
                 cpu_share: float = 0.3, token: str | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        self.server = server
        self.pid = server.process.pid
        self.name = name
        self.rss_growth_mb = rss_growth_mb
        self.p99_s = p99_s
        self.cpu_share = cpu_share
        self.honest = Honest(server, token=token, tls=tls)
        self.sampler = Sampler(self.pid)
        self.shares: list[float] = []
        self.rss_before = 0.0
        self.started = 0.0

    def __enter__(self) -> Watch:
        time.sleep(0.2)  # let the server settle after start and the honest handshake
        self.rss_before = rss_mb(self.pid)
        self.sampler.peak = self.rss_before
        self.started = time.monotonic()
        self.honest.start()
        self.sampler.start()
        return self

    def wait(self, seconds: float) -> None:
        """Let the attack take hold (CPU not judged meanwhile)."""
        time.sleep(seconds)

    def hold(self, seconds: float) -> float:
        """Wait ``seconds`` while the attack holds; returns the server's CPU share meanwhile."""
        before, began = cpu_s(self.pid), time.monotonic()
        time.sleep(seconds)
        share = (cpu_s(self.pid) - before) / (time.monotonic() - began)
        self.shares.append(share)
        return share

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.honest.stop()
        self.sampler.stop()
        wall = time.monotonic() - self.started
        growth = self.sampler.peak - self.rss_before
        p99 = percentile(self.honest.latencies, 0.99)
        cpu = max(self.shares, default=0.0)
        cpu_text = (f"server CPU {cpu:.0%} of a core while held (bound {self.cpu_share:.0%})"
                    if self.shares else "server CPU not judged")
        line = (f"[stress] {self.name}: server RSS {self.rss_before:.0f} -> peak {self.sampler.peak:.0f} MB "
                f"(+{growth:.0f}, bound +{self.rss_growth_mb:.0f}); honest p99 {p99 * 1000:.1f} ms over "
                f"{len(self.honest.latencies)} calls (bound {self.p99_s * 1000:.0f} ms); {cpu_text}; "
                f"{wall:.1f} s")
        print(line, file=sys.stdout, flush=True)
        report = os.environ.get("DUALIO_STRESS_REPORT")
        if report:
            with open(report, "a") as out:
                out.write(line + "\n")
        if exc_type is not None:
            return
        assert self.server.process.poll() is None, "the server process died"
        assert not self.honest.failures, self.honest.failures[:3]
        assert len(self.honest.latencies) >= 20, "the honest client hardly ran"
        assert growth <= self.rss_growth_mb, line
        assert p99 <= self.p99_s, line
        assert cpu <= self.cpu_share, line


# -- raw-socket attackers -----------------------------------------------------------


def connect(server: ServerProcess, timeout: float = 5.0, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:  # set before connect, so the window is small from the start
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.connect(server.address)
    return sock


def hello(token: str | None = None) -> bytes:
    return ClientProtocol(token=token).hello()


def request(rid: int, method: str, args: bytes) -> bytes:
    return encode_frame(FrameKind.REQUEST, rid, methods.encode_request(method, args))


def recv_exact(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError(f"EOF after {len(data)} of {size} bytes")
        data += chunk
    return bytes(data)


def read_frame(sock: socket.socket) -> Frame:
    (length,) = struct.unpack(">I", recv_exact(sock, 4))
    (frame,) = FrameDecoder(1 << 30).feed(struct.pack(">I", length) + recv_exact(sock, length))
    return frame


def handshake(sock: socket.socket, token: str | None = None) -> None:
    sock.sendall(hello(token))
    frame = read_frame(sock)
    assert frame.kind is FrameKind.WELCOME, frame


def read_until_eof(sock: socket.socket, timeout: float) -> tuple[list[Frame], float]:
    """Every frame until the server closes, and when it closed (monotonic)."""
    deadline = time.monotonic() + timeout
    data = bytearray()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"the server did not close the connection within {timeout}s")
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return FrameDecoder(1 << 30).feed(bytes(data)), time.monotonic()


def send_for(sock: socket.socket, data: bytes, seconds: float) -> int:
    """Send as much of ``data`` as the server takes within ``seconds``; returns bytes sent."""
    sock.settimeout(0.05)
    view = memoryview(data)
    sent = 0
    deadline = time.monotonic() + seconds
    while sent < len(data) and time.monotonic() < deadline:
        try:
            sent += sock.send(view[sent : sent + 65536])
        except TimeoutError:
            continue
        except OSError:
            break
    return sent


def abort(sock: socket.socket) -> None:
    """Close with a TCP RST: leave at once, without reading what the server sent."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def stats(server: ServerProcess) -> methods.ServerStats:
    """The server's counters, over a connection of their own."""
    with connect(server) as sock:
        handshake(sock)
        sock.sendall(request(1, "stats", b""))
        frame = read_frame(sock)
        assert frame.kind is FrameKind.RESPONSE, frame
        sock.sendall(encode_frame(FrameKind.CLOSE, 0))
        return methods.ServerStats.from_json(frame.payload)
