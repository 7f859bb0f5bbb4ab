"""Run the reference server inside the current process, on a thread of its own."""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType
from typing import Literal

from dualio.server.async_model import AsyncServer, ServerConfig
from dualio.server.sequential_model import SequentialServer
from dualio.server.threaded_model import ThreadedServer

ServerModel = Literal["async", "threaded", "sequential"]


class EmbeddedServer:
    """``with EmbeddedServer() as server: Client(server.host, server.port)``.

    The async model runs its own event loop on one background thread; the
    threaded and sequential models run their accept loop on one. Leaving the
    block stops the server and joins every thread it started.
    """

    def __init__(self, config: ServerConfig | None = None, model: ServerModel = "async") -> None:
        if model not in ("async", "threaded", "sequential"):
            raise ValueError(f"unknown server model {model!r}: async, threaded or sequential")
        self.config = config or ServerConfig(port=0)
        self.model = model
        self.host = self.config.host
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._async_server: AsyncServer | None = None
        self._threaded: ThreadedServer | None = None

    def start(self) -> EmbeddedServer:
        if self.model != "async":
            self._threaded = (SequentialServer if self.model == "sequential" else ThreadedServer)(self.config)
            self.port = self._threaded.start()
            return self
        ready = threading.Event()
        failure: list[BaseException] = []
        self._loop = asyncio.new_event_loop()
        self._async_server = AsyncServer(self.config)

        def run() -> None:
            assert self._loop is not None and self._async_server is not None
            asyncio.set_event_loop(self._loop)
            try:
                self.port = self._loop.run_until_complete(self._async_server.start())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                return
            ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._async_server.stop())
            self._loop.close()

        self._thread = threading.Thread(target=run, name="dualio-embedded-server", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread.join()
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._threaded is not None:
            self._threaded.stop()
            self._threaded = None
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop = None
            self._thread = None

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
