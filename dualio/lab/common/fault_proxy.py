"""A fault-injecting TCP proxy between a client and the real server (toxiproxy's idea).

    with FaultProxy(server.address) as proxy:
        client = Client(*proxy.address)
        proxy.set(Toxic("latency", 0.2))   # every chunk the server sends waits 200 ms
        ...
        proxy.clear()                      # the network is well again

Each accepted connection gets a connection to the upstream server and two pump
threads, one per direction. What a pump does with each chunk depends on the toxic
in force when the chunk is read, so a toxic set or cleared mid-connection acts at
once. The toxics:

- ``latency(s)``: each chunk towards the client waits ``s`` seconds;
- ``bandwidth(bytes/s)``: both directions are held to that rate;
- ``slicer(n)``: chunks are cut into slices of at most ``n`` bytes, sent apart;
- ``blackhole``: nothing moves (bytes are held, as a network outage holds them);
  when cleared, what was held flows on;
- ``timeout(s)``: nothing moves, and ``s`` seconds later the connection is closed;
- ``reset_peer``: every connection is reset (RST), new ones as soon as they arrive;
- ``limit_data(n)``: a connection is closed once ``n`` bytes have passed upstream;
- ``slow_close(s)``: a side that hangs up is passed on ``s`` seconds later;
- ``slow_reader(bytes/s)``: the server reads the client's bytes at that rate (a request
  larger than the socket buffers then stalls the client's write);
- ``half_open``: the server vanishes without a word (no FIN, no RST); when cleared it is
  back, and the connections it had are answered with a reset, as a rebooted host's are.

Every wait is bounded: pumps look at the toxic and at ``close()`` at least every
``_LOOK``, and ``close()`` stops every thread it started.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from dataclasses import dataclass
from types import TracebackType

_CHUNK = 64 * 1024
_LOOK = 0.02  # a paused pump checks this often whether it may go on
_SMALL_BUFFER = 16 * 1024  # the proxy's receive buffer for a slow reader: a stall shows early


@dataclass(frozen=True)
class Toxic:
    kind: str
    value: float = 0.0

    def __str__(self) -> str:
        return f"{self.kind}({self.value:g})" if self.value else self.kind


KINDS = (
    "latency", "bandwidth", "slicer", "blackhole", "timeout", "reset_peer", "limit_data",
    "slow_close", "slow_reader", "half_open",
)


def _reset(sock: socket.socket) -> None:
    """Close with an RST instead of a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class _Link:
    """One client connection and its upstream."""

    def __init__(self, proxy: FaultProxy, client: socket.socket, upstream: socket.socket) -> None:
        self.proxy = proxy
        self.client = client
        self.upstream = upstream
        self.lock = threading.Lock()
        self.closed = False
        self.upstream_bytes = 0
        self.vanished = False  # met a half_open toxic: dead for good
        self.timed_out_at: float | None = None

    def close(self, reset: bool = False) -> None:
        with self.lock:
            if self.closed:
                return
            self.closed = True
        for sock in (self.client, self.upstream):
            if reset:
                _reset(sock)
            else:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()


class FaultProxy:
    """A proxy on 127.0.0.1 to ``upstream``; ``set`` a toxic, ``clear`` it."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._toxic: Toxic | None = None
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._links: list[_Link] = []
        self._threads: list[threading.Thread] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(_LOOK * 5)
        self.address: tuple[str, int] = self._listener.getsockname()[:2]
        self.accepted = 0
        self._spawn(self._accept_loop)

    # -- toxics ---------------------------------------------------------------------

    @property
    def toxic(self) -> Toxic | None:
        return self._toxic

    def set(self, toxic: Toxic) -> None:
        if toxic.kind not in KINDS:
            raise ValueError(f"unknown toxic {toxic.kind!r}")
        with self._changed:
            self._toxic = toxic
            self._changed.notify_all()
        if toxic.kind == "reset_peer":
            for link in self._live_links():
                link.close(reset=True)

    def clear(self) -> None:
        with self._changed:
            was, self._toxic = self._toxic, None
            self._changed.notify_all()
        if was is not None and was.kind == "half_open":
            for link in self._live_links():
                if link.vanished:
                    link.close(reset=True)

    def _live_links(self) -> list[_Link]:
        with self._changed:
            return [link for link in self._links if not link.closed]

    # -- threads --------------------------------------------------------------------

    def _spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name="fault-proxy")  # type: ignore[arg-type]
        with self._changed:
            self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            toxic = self._toxic
            if toxic is not None and toxic.kind == "reset_peer":
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                _reset(client)
                continue
            for sock in (client, upstream):
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            link = _Link(self, client, upstream)
            if toxic is not None and toxic.kind == "half_open":
                link.vanished = True
            with self._changed:
                self._links.append(link)
            self._spawn(self._pump, link, client, upstream, True)
            self._spawn(self._pump, link, upstream, client, False)

    def _pause(self, link: _Link) -> bool:
        """Wait while the toxic says nothing moves; False when the link is to end."""
        while True:
            if self._stopping.is_set() or link.closed:
                return False
            toxic = self._toxic
            if link.vanished:
                if toxic is None or toxic.kind != "half_open":
                    return False  # cleared: the link is reset by clear()
            elif toxic is None or toxic.kind not in ("blackhole", "timeout", "half_open"):
                link.timed_out_at = None
                return True
            elif toxic.kind == "half_open":
                link.vanished = True
            elif toxic.kind == "timeout":
                now = time.monotonic()
                if link.timed_out_at is None:
                    link.timed_out_at = now + toxic.value
                elif now >= link.timed_out_at:
                    link.close()
                    return False
            with self._changed:
                self._changed.wait(_LOOK)

    def _pump(self, link: _Link, source: socket.socket, sink: socket.socket, upward: bool) -> None:
        slow_reading = False
        usual_buffer = 0  # the receive buffer a slow reader shrank, given back once it is gone
        try:
            while True:
                if not self._pause(link):
                    return
                toxic = self._toxic
                size = _CHUNK
                if upward and toxic is not None and toxic.kind == "slow_reader":
                    if not slow_reading:
                        usual_buffer = source.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
                        source.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _SMALL_BUFFER)
                        slow_reading = True
                    size = max(1, int(toxic.value * _LOOK))
                    time.sleep(_LOOK)
                elif slow_reading:  # the network is well again: the reader's buffer too
                    source.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, usual_buffer // 2)
                    slow_reading = False
                source.settimeout(_LOOK * 5)
                try:
                    data = source.recv(size)
                except TimeoutError:
                    continue
                if not data:
                    toxic = self._toxic
                    if toxic is not None and toxic.kind == "slow_close":
                        time.sleep(toxic.value)
                    try:
                        sink.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    return
                self._forward(link, sink, data, upward)
        except OSError:
            link.close()

    def _forward(self, link: _Link, sink: socket.socket, data: bytes, upward: bool) -> None:
        while data:
            if not self._pause(link):
                return
            toxic = self._toxic
            piece = data
            if toxic is not None:
                if toxic.kind == "latency" and not upward:
                    time.sleep(toxic.value)
                elif toxic.kind == "bandwidth":
                    piece = data[: max(1, int(toxic.value * _LOOK))]
                    time.sleep(_LOOK)
                elif toxic.kind == "slicer":
                    piece = data[: int(toxic.value)]
                    time.sleep(0.0005)
                elif toxic.kind == "limit_data" and upward:
                    room = int(toxic.value) - link.upstream_bytes
                    if room <= 0:
                        link.close()
                        return
                    piece = data[:room]
            sink.sendall(piece)
            if upward:
                link.upstream_bytes += len(piece)
            data = data[len(piece):]

    # -- the end --------------------------------------------------------------------

    def close(self) -> None:
        self._stopping.set()
        with self._changed:
            self._changed.notify_all()
        self._listener.close()
        for link in self._live_links():
            link.close()
        with self._changed:
            threads = list(self._threads)
        for thread in threads:
            thread.join(5)
        alive = [t for t in threads if t.is_alive()]
        assert not alive, f"{len(alive)} proxy threads did not end"

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
