"""The sockets a server listens on: bound to every address its host resolves to, or
handed down by the process that forked it."""

from __future__ import annotations

import socket

from dualio.server.config import ServerConfig


def listen(host: str, port: int, backlog: int | None, *,
           reuse_port: bool = False) -> list[socket.socket]:
    """Listening sockets for every address ``host`` resolves to (as asyncio's create_server).

    ``reuse_port``: bind with SO_REUSEPORT, so the sockets of other processes can listen on
    the same port (Linux then spreads connections among them); every address gets the port
    the first one was given, even with ``port`` 0. ``backlog`` None: bound, not listening —
    a reservation that keeps the port while the processes serving it come and go.
    """
    infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    socks: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _, address in infos:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                if len(socks) > 1:
                    address = (address[0], socks[0].getsockname()[1], *address[2:])
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                raise OSError(exc.errno, f"error while attempting to bind on address {address!r}: "
                                         f"{exc.strerror}") from None
            if backlog is not None:
                sock.listen(backlog)
    except BaseException:
        for sock in socks:
            sock.close()
        raise
    return socks


def listeners(config: ServerConfig) -> list[socket.socket]:
    """The sockets a server accepts from: ``config.listening_sockets`` (made by the process
    that forked this one), or new ones bound to ``config.host`` and ``config.port``."""
    if config.listening_sockets:
        return list(config.listening_sockets)
    return listen(config.host, config.port, config.backlog, reuse_port=config.reuse_port)
