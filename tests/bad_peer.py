"""A real TCP peer that completes the handshake and then misbehaves on purpose."""

from __future__ import annotations

import socket
import threading
from types import TracebackType

from transports.wire.client_protocol import WELCOME
from transports.wire.frames import DEFAULT_MAX_FRAME_SIZE, PROTOCOL_VERSION, FrameKind, encode_frame


class BadPeer:
    """Accepts connections on 127.0.0.1; answers HELLO with WELCOME, then sends
    ``after_welcome`` as soon as the client's first request arrives."""

    def __init__(self, after_welcome: bytes) -> None:
        self._payload = after_welcome
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.address = self._listener.getsockname()[:2]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            conn.recv(1024)  # HELLO
            conn.sendall(encode_frame(
                FrameKind.WELCOME, 0, WELCOME.pack(PROTOCOL_VERSION, DEFAULT_MAX_FRAME_SIZE)
            ))
            conn.recv(1024)  # the first request
            conn.sendall(self._payload)
            while conn.recv(1024):
                pass
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> BadPeer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._listener.close()
