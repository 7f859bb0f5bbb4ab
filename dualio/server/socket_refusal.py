"""Refusing a connection the server has just accepted, without blocking its accept loop."""

from __future__ import annotations

import socket


def refuse_socket(sock: socket.socket, refusal: bytes) -> None:
    """Send ``refusal`` on a freshly accepted socket without blocking, then close it.

    What the peer already sent (its HELLO) is read and dropped first, so the close is
    a FIN after the refusal, not a reset that could destroy it in the peer's buffer.
    """
    try:
        sock.setblocking(False)
        if refusal:
            sock.send(refusal)
        sock.shutdown(socket.SHUT_WR)
        sock.recv(65536)
    except OSError:
        pass
    finally:
        sock.close()
