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


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _announce(host: str, port: int) -> None:
    print(f"listening on {host}:{port}", flush=True)


async def _serve_async(config: ServerConfig, on_listening: Callable[[int], None],
                       stop_signals: tuple[signal.Signals, ...]) -> None:
    server = AsyncServer(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in stop_signals:  # before anyone is told the port: a signal from then on stops it
        loop.add_signal_handler(sig, stop.set)
    port = await server.start()
    on_listening(port)
    await stop.wait()
    await server.stop()


def _serve_blocking(server: ThreadedServer, on_listening: Callable[[int], None],
                    stop_signals: tuple[signal.Signals, ...]) -> None:
    """Run a blocking model (threaded or sequential) until one of ``stop_signals``."""
    stop = threading.Event()
    for sig in stop_signals:  # before anyone is told the port: a signal from then on stops it
        signal.signal(sig, lambda *_: stop.set())
    port = server.start()
    on_listening(port)
    while not stop.wait(0.5):
        pass
    server.stop()


def _blocking_server(config: ServerConfig, model: str) -> ThreadedServer | None:
    """The server of a blocking model, None for the async one; ValueError for a config
    the model refuses."""
    if model == "threaded":
        return ThreadedServer(config)
    return SequentialServer(config) if model == "sequential" else None


def run_model(config: ServerConfig, model: str, new_loop: Callable[[], asyncio.AbstractEventLoop],
              on_listening: Callable[[int], None],
              stop_signals: tuple[signal.Signals, ...] = STOP_SIGNALS) -> None:
    """Serve with ``model`` in this process until one of ``stop_signals``; ``on_listening``
    is given the port once bound. OSError if it cannot listen."""
    blocking = _blocking_server(config, model)
    if blocking is not None:
        _serve_blocking(blocking, on_listening, stop_signals)
    else:
        with asyncio.Runner(loop_factory=new_loop) as runner:
            runner.run(_serve_async(config, on_listening, stop_signals))


def cannot_listen(config: ServerConfig, exc: OSError) -> None:
    print(f"dualio serve: cannot listen on {config.host}:{config.port}: {exc}", file=sys.stderr,
          flush=True)


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


def serve(config: ServerConfig, model: str, loop: str = "asyncio", workers: int = 1,
          shared_socket: bool | None = None) -> int:
    """Serve until SIGINT/SIGTERM; the exit status. ``model`` is one of MODELS; ``loop``
    (one of LOOPS) is the async model's event loop; LoopUnavailable if its package is
    missing. ValueError for an unknown model, or a config the model refuses.

    ``workers`` above 1: that many processes serve the port, each with its own ``model``
    server, under a supervisor (dualio.server.workers); ``shared_socket``: all accept from
    one socket (None: where the kernel does not balance SO_REUSEPORT sockets)."""
    if model not in MODELS:
        raise ValueError(f"unknown server model {model!r}: choose one of {', '.join(MODELS)}")
    new_loop = loop_factory(loop)
    _blocking_server(config, model)  # refuses a config the model cannot serve, before anything starts
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )
    if workers > 1:
        from dualio.server.workers import Supervisor

        def serve_worker(worker_config: ServerConfig, on_listening: Callable[[int], None]) -> int:
            try:
                run_model(worker_config, model, new_loop, on_listening, (signal.SIGTERM,))
            except OSError as exc:
                cannot_listen(worker_config, exc)
                return 1
            return 0

        try:
            supervisor = Supervisor(config, workers, shared_socket)
        except OSError as exc:
            cannot_listen(config, exc)
            return 1
        status = supervisor.run(serve_worker, lambda port: _announce(config.host, port))
        if status == 0:
            print("stopped", file=sys.stderr, flush=True)
        return status
    try:
        run_model(config, model, new_loop, lambda port: _announce(config.host, port))
    except OSError as exc:
        cannot_listen(config, exc)
        return 1
    print("stopped", file=sys.stderr, flush=True)
    return 0
