"""A fake dualio server that follows a script, over real TCP on 127.0.0.1.

It replaces every hand-rolled fake server of the test suite. A real server is
the right peer wherever it fits; this one is for what a real server never does:
answer with the wrong frame, break the framing, say WELCOME twice, stall, reset.

    peer = ScriptedPeer(expect(FrameKind.REQUEST), reply(FrameKind.PONG), drain())
    with peer:
        client = Client(*peer.address)
        ...
    assert peer.kinds == [FrameKind.HELLO, FrameKind.REQUEST, FrameKind.CLOSE]

- The script is a sequence of steps (the functions below); each accepted
  connection runs it on its own thread, after the handshake (read HELLO, send
  WELCOME) unless ``handshake=False``.
- Every frame the client sends is recorded (``frames``, ``kinds``), including
  HELLO, as soon as it is read; ``wait_for`` waits until a kind has arrived.
- Every wait is bounded: each socket operation times out after ``IO_TIMEOUT``
  seconds, a stall ends after at most ``IO_TIMEOUT`` (or at ``close()``), and the
  listener stops after ``connections`` clients (or ``IO_TIMEOUT`` without one).
- A step that does not get what it expects (the wrong frame kind, the client
  hanging up too early, a timeout) ends that connection's script; ``close()``
  (or leaving the ``with`` block) raises it as :class:`ScriptError`.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from types import TracebackType

from dualio_transports.dualio_protocol.client_protocol import WELCOME
from dualio_transports.dualio_protocol.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    HEADER,
    MIN_FRAME_LENGTH,
    PROTOCOL_VERSION,
    Frame,
    FrameDecoder,
    FrameKind,
    encode_frame,
)
from dualio_transports.dualio_protocol.methods import F64, decode_request, word_at
from dualio_transports.wire.errors import ErrorCode

IO_TIMEOUT = 5.0  # the peer never waits longer than this for anything


class ScriptError(AssertionError):
    """The client did not do what the script expected (or the peer itself failed)."""


class PeerConnection:
    """One accepted connection, as the steps see it."""

    def __init__(self, peer: ScriptedPeer, sock: socket.socket) -> None:
        self.peer = peer
        self.sock = sock
        self._decoder = FrameDecoder()
        self._pending: deque[Frame] = deque()
        self.request: Frame | None = None  # the last REQUEST or PING read: what replies answer
        self.eof = False

    def read_frame(self) -> Frame | None:
        """The client's next frame, recorded; None once the client has hung up."""
        while not self._pending:
            if self.eof:
                return None
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                self.eof = True
                return None
            frames = self._decoder.feed(data)
            self.peer._record(frames)
            self._pending.extend(frames)
        return self._pending.popleft()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def answered_id(self) -> int:
        if self.request is None:
            raise ScriptError("a reply step came before any REQUEST or PING was read")
        return self.request.id


Step = Callable[[PeerConnection], None]


# -- steps -------------------------------------------------------------------------


def expect(kind: FrameKind, *, same_id: bool = False) -> Step:
    """Read the client's next frame; it must be ``kind``. With ``same_id`` its id must be
    that of the last REQUEST/PING (a CANCEL of that request)."""

    def step(conn: PeerConnection) -> None:
        frame = conn.read_frame()
        if frame is None:
            raise ScriptError(f"expected {kind.name}, the client hung up")
        if frame.kind is not kind:
            raise ScriptError(f"expected {kind.name}, got {frame.kind.name} (id {frame.id})")
        if same_id and frame.id != conn.answered_id():
            raise ScriptError(f"expected {kind.name} for id {conn.answered_id()}, got id {frame.id}")
        if kind in (FrameKind.REQUEST, FrameKind.PING):
            conn.request = frame

    step.__name__ = f"expect({kind.name})"
    return step


def welcome(version: int = PROTOCOL_VERSION, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> Step:
    """Send a WELCOME (the handshake's answer, or a second one)."""
    return send_raw(encode_frame(FrameKind.WELCOME, 0, WELCOME.pack(version, max_frame_size)))


def reply(
    kind: FrameKind, payload: bytes = b"", *, id_offset: int = 0, request_id: int | None = None
) -> Step:
    """Send one frame of ``kind`` for the last REQUEST/PING read (its id plus ``id_offset``),
    or for ``request_id`` when given."""

    def step(conn: PeerConnection) -> None:
        rid = conn.answered_id() + id_offset if request_id is None else request_id
        conn.send(encode_frame(kind, rid, payload))

    return step


def reply_error(code: ErrorCode, message: str = "", *, request_id: int | None = None) -> Step:
    """An ERROR frame with ``code`` for the last REQUEST/PING (or ``request_id``; 0: the connection)."""
    return reply(FrameKind.ERROR, struct.pack(">H", code) + message.encode(), request_id=request_id)


def reply_kind_number(kind: int, payload: bytes = b"") -> Step:
    """A frame whose kind byte is ``kind``, which need not be a defined kind."""

    def step(conn: PeerConnection) -> None:
        conn.send(HEADER.pack(MIN_FRAME_LENGTH + len(payload), kind, conn.answered_id()) + payload)

    return step


def echo_back() -> Step:
    """Answer the last REQUEST, an ``echo``, with its data (what a real server would send)."""

    def step(conn: PeerConnection) -> None:
        request = conn.request
        if request is None:
            raise ScriptError("echo_back before any REQUEST")
        method, args = decode_request(request.payload)
        if method != "echo" or len(args) < F64.size:
            raise ScriptError(f"echo_back: the request is {method!r} with {len(args)} argument bytes")
        conn.send(encode_frame(FrameKind.RESPONSE, request.id, args[F64.size :]))

    return step


def stream_items(count: int) -> Step:
    """Send the first ``count`` items of a ``words`` stream for the last REQUEST."""

    def step(conn: PeerConnection) -> None:
        rid = conn.answered_id()
        items = (encode_frame(FrameKind.STREAM_ITEM, rid, word_at(i).encode()) for i in range(count))
        conn.send(b"".join(items))

    return step


def send_raw(data: bytes) -> Step:
    """Send ``data`` as it is (need not be frames)."""

    def step(conn: PeerConnection) -> None:
        conn.send(data)

    return step


def stall(seconds: float = IO_TIMEOUT) -> Step:
    """Stop reading (and sending) for ``seconds``, at most ``IO_TIMEOUT``, or until ``close()``."""

    def step(conn: PeerConnection) -> None:
        conn.peer._stopping.wait(min(seconds, IO_TIMEOUT))

    return step


def hang_up() -> Step:
    """Close the connection in order (FIN); the script ends here."""

    def step(conn: PeerConnection) -> None:
        try:
            conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.sock.close()

    return step


def reset() -> Step:
    """Abort the connection (RST, by SO_LINGER 0); the script ends here."""

    def step(conn: PeerConnection) -> None:
        conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.sock.close()

    return step


def drain() -> Step:
    """Read (and record) until the client hangs up; a client that never does is an error."""

    def step(conn: PeerConnection) -> None:
        try:
            while conn.read_frame() is not None:
                pass
        except TimeoutError:
            raise ScriptError(f"the client did not hang up within {IO_TIMEOUT}s") from None

    return step


HANDSHAKE: tuple[Step, ...] = (expect(FrameKind.HELLO), welcome())


# -- the peer ----------------------------------------------------------------------


class ScriptedPeer:
    """Listens on 127.0.0.1 (``address``) and runs ``steps`` on each of ``connections`` clients."""

    def __init__(self, *steps: Step, handshake: bool = True, connections: int = 1) -> None:
        self.script: tuple[Step, ...] = (*HANDSHAKE, *steps) if handshake else steps
        self.connections = connections
        self.frames: list[Frame] = []
        self.failures: list[BaseException] = []
        self.finished = threading.Event()  # every connection's script has ended
        self._recorded = threading.Condition()
        self._stopping = threading.Event()
        self._handlers: list[threading.Thread] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.address: tuple[str, int] = self._listener.getsockname()[:2]
        self._thread = threading.Thread(target=self._accept, name="scripted-peer", daemon=True)
        self._thread.start()

    @property
    def kinds(self) -> list[FrameKind]:
        """The kinds of the frames the client sent, in order."""
        with self._recorded:
            return [frame.kind for frame in self.frames]

    def wait_for(self, kind: FrameKind, timeout: float = IO_TIMEOUT) -> bool:
        """Whether the client sent a frame of ``kind`` within ``timeout`` seconds."""
        with self._recorded:
            return self._recorded.wait_for(lambda: any(f.kind is kind for f in self.frames), timeout)

    def wait_finished(self, timeout: float = IO_TIMEOUT) -> bool:
        return self.finished.wait(timeout)

    def _record(self, frames: Iterable[Frame]) -> None:
        with self._recorded:
            self.frames.extend(frames)
            self._recorded.notify_all()

    def _accept(self) -> None:
        try:
            for _ in range(self.connections):
                sock = self._next_client()
                if sock is None:
                    return
                handler = threading.Thread(
                    target=self._serve, args=(sock,), name="scripted-peer-conn", daemon=True
                )
                self._handlers.append(handler)
                handler.start()
            for handler in self._handlers:
                handler.join(IO_TIMEOUT * 3)
        finally:
            self.finished.set()

    def _next_client(self) -> socket.socket | None:
        """The next client's socket; None when stopping or when none came within IO_TIMEOUT."""
        deadline = time.monotonic() + IO_TIMEOUT
        while not self._stopping.is_set():
            if time.monotonic() > deadline:
                self.failures.append(ScriptError(f"no client connected within {IO_TIMEOUT}s"))
                return None
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:  # the listener was closed
                return None
            return sock
        return None

    def _serve(self, sock: socket.socket) -> None:
        with sock:
            sock.settimeout(IO_TIMEOUT)
            conn = PeerConnection(self, sock)
            for step in self.script:
                try:
                    step(conn)
                except BaseException as exc:
                    if not isinstance(exc, ScriptError):
                        exc = ScriptError(f"step {getattr(step, '__name__', step)} failed: {exc!r}")
                    self.failures.append(exc)
                    return

    def close(self) -> None:
        """Stop (ending any stall), wait for the threads, and raise the first failure."""
        self._stopping.set()
        deadline = time.monotonic() + IO_TIMEOUT + 1
        self._thread.join(max(0.0, deadline - time.monotonic()))
        for handler in self._handlers:
            handler.join(max(0.0, deadline - time.monotonic()))
        self._listener.close()
        alive = self._thread.is_alive() or any(h.is_alive() for h in self._handlers)
        if self.failures:
            raise self.failures[0]
        if alive:
            raise ScriptError("a scripted peer thread hangs")

    def __enter__(self) -> ScriptedPeer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None:
            self.close()
        else:  # the test's own failure comes first; still stop the threads
            try:
                self.close()
            except ScriptError:
                pass
