"""``dualio serve``: run the reference server in the foreground until SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Callable

from dualio.server.async_model import AsyncServer, ServerConfig
from dualio.server.sequential_model import SequentialServer
from dualio.server.threaded_model import ThreadedServer

MODELS = ("async", "threaded", "sequential")
"""The server models ``dualio serve --model`` runs."""


def _announce(host: str, port: int) -> None:
    print(f"listening on {host}:{port}", flush=True)


async def _serve_async(config: ServerConfig) -> None:
    server = AsyncServer(config)
    port = await server.start()
    _announce(config.host, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()


def _serve_blocking(server: ThreadedServer) -> None:
    """Run a blocking model (threaded or sequential) until SIGINT/SIGTERM."""
    config = server.config
    port = server.start()
    _announce(config.host, port)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    server.stop()


LOOPS = ("asyncio", "uvloop")
"""The event loops the async model runs on (``dualio serve --loop``)."""


class LoopUnavailable(Exception):
    """The event loop asked for cannot be had (its package is not installed)."""


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop]:
    """A function that makes a new event loop of the kind ``name`` (one of LOOPS)."""
    if name == "asyncio":
        return asyncio.new_event_loop
    if name != "uvloop":
        raise ValueError(f"unknown event loop {name!r}: choose one of {', '.join(LOOPS)}")
    try:
        import uvloop
    except ImportError as exc:
        raise LoopUnavailable("--loop uvloop needs the uvloop package: pip install uvloop "
                              "(or pip install 'dualio[uvloop]')") from exc
    new_loop: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return new_loop


def serve(config: ServerConfig, model: str, loop: str = "asyncio") -> int:
    """Serve until SIGINT/SIGTERM; the exit status. ``model`` is one of MODELS; ``loop``
    (one of LOOPS) is the async model's event loop; LoopUnavailable if its package is
    missing. ValueError for an unknown model, or a config the model refuses."""
    if model not in MODELS:
        raise ValueError(f"unknown server model {model!r}: choose one of {', '.join(MODELS)}")
    new_loop = loop_factory(loop)
    blocking = (ThreadedServer(config) if model == "threaded"
                else SequentialServer(config) if model == "sequential" else None)
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )
    try:
        if blocking is not None:
            _serve_blocking(blocking)
        else:
            with asyncio.Runner(loop_factory=new_loop) as runner:
                runner.run(_serve_async(config))
    except OSError as exc:
        print(f"dualio serve: cannot listen on {config.host}:{config.port}: {exc}",
              file=sys.stderr)
        return 1
    print("stopped", file=sys.stderr, flush=True)
    return 0
