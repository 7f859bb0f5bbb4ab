"""The async face: ``async with AsyncClient(host, port) as c: await c.echo(b"hi")``."""

from __future__ import annotations

import ssl
from concurrent.futures import Executor

from dualio.face_connection import AsyncFaceConnection, TransportName, check_transport
from dualio.service_methods import AsyncServiceMethods
from dualio_transports.dualio_protocol.frames import DEFAULT_MAX_FRAME_SIZE
from dualio_transports.emulation.emulated_connection import Strategy
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.policy.events import (
    RequestCallback,
    ResponseCallback,
    StateCallback,
)
from dualio_transports.policy.retry import DEFAULT_RETRY, RetryPolicy
from dualio_transports.policy.url import FromUrl

__all__ = ["AsyncClient", "TransportName"]


class AsyncClient(AsyncServiceMethods, AsyncFaceConnection, FromUrl):
    """An async client of the dualio service, on asyncio or trio.

    ``transport="native"`` (default) talks through non-blocking sockets on the
    running loop: the ``asyncio.Protocol`` fast path on asyncio and uvloop, the
    anyio transport on trio. ``transport="anyio"`` uses the anyio transport on
    either loop. ``transport="emulated"`` drives the blocking transport from
    worker threads, with ``emulation="pool" | "thread" | "callback"`` (see
    docs/architecture.md). ``max_workers`` sizes a pool of the client's own;
    ``executor`` supplies one; by default the loop's default executor is used
    (``min(32, cpu + 4)`` workers).

    Open it with ``async with`` (or ``await client.open()`` and
    ``await client.aclose()``) in one task; use it from any task on that loop.
    Method names, parameters and defaults are those of ``dualio_sync.Client``.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 7878,
        *,
        timeout: float | None = 30.0,
        connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None,
        server_hostname: str | None = None,
        token: str | None = None,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        keepalive: float | None = 15.0,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        lazy: bool = False,
        on_state: StateCallback | None = None,
        on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None,
        transport: TransportName = "native",
        emulation: Strategy = "pool",
        max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> None:
        check_transport(transport, emulation, max_workers, executor)
        options = ConnectOptions(
            host, port, connect_timeout, tls, server_hostname, token, max_frame_size, keepalive
        )
        self._setup(
            options, timeout=timeout, retry=retry, lazy=lazy, on_state=on_state, on_request=on_request,
            on_response=on_response, transport=transport, emulation=emulation, max_workers=max_workers,
            executor=executor,
        )
