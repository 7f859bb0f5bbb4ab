"""Whether a socket has bytes (or its end) waiting, asked of the kernel without reading
and without waiting. Both transports that read only while a call waits (blocking,
anyio) ask it before a call on an idle connection (see ``CallTable.idle``)."""

from __future__ import annotations

import select
import socket


class PendingInput:
    """``busy``: what to answer while another thread asks at the same moment (False:
    that thread reads what waits; True, for a caller that must not miss anything: a
    client-side cache, which then asks the server)."""

    __slots__ = ("_busy", "_poll", "_sock")

    def __init__(self, sock: socket.socket, busy: bool = False) -> None:
        self._sock = sock
        self._busy = busy
        self._poll: select.poll | None = None
        if hasattr(select, "poll"):  # select() refuses descriptors past 1024; poll() does not
            self._poll = select.poll()
            self._poll.register(sock.fileno(), select.POLLIN)

    def __call__(self) -> bool:
        """True if something waits (``busy`` while another thread asks at the same moment)."""
        if self._poll is None:
            return bool(select.select([self._sock], [], [], 0)[0])
        try:
            return bool(self._poll.poll(0))
        except RuntimeError:  # "concurrent poll() invocation"
            return self._busy
