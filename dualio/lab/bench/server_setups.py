"""The server set-ups the lab measures against: a name for each way of running
``dualio serve``, and which scenarios compare them.

Source 2 (the echo server) and source 5 (1 MiB answers) compared servers, not
clients. ``echo`` runs against the async and threaded models, and against the
threaded model with a listen backlog of 5: the source's server was a plain
``socketserver`` server, whose backlog is 5, and with N clients connecting at once
most of its connects wait for the kernel's SYN retries (1 s, 3 s, 7 s, ...), which is
what its own figures at 10,000 show. ``blob`` runs against source 5's three:
async, one-at-a-time (``sequential``) and a cluster of one-at-a-time servers, here
two processes, one per core (``sequential-x2``); and the threaded model besides.
``server`` runs the async server beside ``floor``, the lab's minimal hand-written
asyncio echo server (:mod:`dualio.lab.peers.asyncio_server`), so that the reference server's
CPU per request is a ratio to what the protocol costs a Python server with nothing
added. Other scenarios measure clients, against the async server.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSetup:
    name: str
    model: str  # dualio serve --model
    workers: int = 1  # dualio serve --workers
    options: tuple[str, ...] = ()  # more dualio serve options
    about: str = ""


SETUPS = {
    setup.name: setup
    for setup in (
        ServerSetup("async", "async", about="one process, asyncio"),
        ServerSetup("threaded", "threaded", about="one process, a thread per connection"),
        ServerSetup("threaded-backlog5", "threaded", options=("--backlog", "5"),
                    about="a thread per connection, listen backlog 5 (socketserver's default)"),
        ServerSetup("sequential", "sequential", about="one connection at a time"),
        ServerSetup("sequential-x2", "sequential", workers=2,
                    about="two one-at-a-time server processes sharing the port"),
        ServerSetup("floor", "peer",
                    about="the lab's minimal asyncio echo server (dualio.lab.peers.asyncio_server), "
                          "no limits"),
    )
}
ECHO_SETUPS = ("async", "threaded", "threaded-backlog5")
BLOB_SETUPS = ("async", "threaded", "sequential", "sequential-x2")
FLOOR_SETUPS = ("async", "floor")
"""The ``server`` scenario's: the reference server and its floor."""
QUICK_SETUPS = ("async", "threaded")
"""The set-ups of a --quick run (a full run measures them all)."""


def choose(text: str | None, quick: bool) -> list[str]:
    """The set-ups named by ``--server-model`` (comma-separated, ``both`` or ``all``), in
    a fixed order, ``async`` first. ValueError names what is unknown."""
    if text is None:
        text = "both" if quick else "all"
    if text == "all":
        return list(SETUPS)
    names = list(QUICK_SETUPS) if text == "both" else text.split(",")
    unknown = [n for n in names if n not in SETUPS]
    if unknown:
        raise ValueError(f"unknown server set-up {', '.join(unknown)}; choose from "
                         f"{', '.join(SETUPS)}, both or all")
    return [n for n in SETUPS if n in names]
