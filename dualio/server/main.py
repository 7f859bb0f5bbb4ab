"""``dualio serve``: run the reference server in the foreground until SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading

from dualio.server.async_model import AsyncServer, ServerConfig
from dualio.server.threaded_model import ThreadedServer


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


def _serve_threaded(config: ServerConfig) -> None:
    server = ThreadedServer(config)
    port = server.start()
    _announce(config.host, port)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    server.stop()


def serve(config: ServerConfig, model: str) -> int:
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )
    try:
        if model == "threaded":
            _serve_threaded(config)
        else:
            asyncio.run(_serve_async(config))
    except OSError as exc:
        print(f"dualio serve: cannot listen on {config.host}:{config.port}: {exc}",
              file=sys.stderr)
        return 1
    print("stopped", file=sys.stderr, flush=True)
    return 0
