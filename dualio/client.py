"""The async face: ``async with AsyncClient(host, port) as c: await c.echo(b"hi")``."""

from __future__ import annotations

import ssl
from typing import Unpack

from dualio.service_methods import AsyncServiceMethods
from dualio.toolkit import (
    DEFAULT_RETRY,
    AsyncFace,
    AsyncOnly,
    ConnectOptions,
    FromUrl,
    RequestCallback,
    ResponseCallback,
    RetryPolicy,
    StateCallback,
    TransportName,
)
from dualio_transports.dualio_protocol.client_protocol import protocol_v1
from dualio_transports.dualio_protocol.frames import DEFAULT_MAX_FRAME_SIZE

__all__ = ["AsyncClient", "TransportName"]


class AsyncClient(AsyncServiceMethods, AsyncFace, FromUrl):
    """A client of the dualio service over one connection that concurrent calls share,
    each answered by request id.

    ``transport`` picks how calls wait (:data:`TransportName`); how the client is opened
    and shared is :class:`AsyncFace`'s. ``timeout`` is the default for every
    call (``None``: wait forever); each method takes ``timeout=`` to override it for one
    call. For ``words`` it bounds the wait for each item. A call that times out raises
    :class:`~dualio_transports.wire.errors.DualioTimeout` and leaves the connection
    usable; its late answer is dropped.

    A lost connection is opened again by the next call, and calls that are safe to
    repeat are retried, as ``retry`` allows (``None``: never). ``lazy=True`` connects on
    the first call instead of at opening. ``keepalive`` seconds of silence are checked
    with a PING. See docs/api.md for ``on_state``, ``on_request`` and ``on_response``.
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
        **async_only: Unpack[AsyncOnly],
    ) -> None:
        options = ConnectOptions(
            host, port, connect_timeout, tls, server_hostname, keepalive, protocol_v1(token, max_frame_size),
        )
        super().__init__(
            options, timeout=timeout, retry=retry, lazy=lazy, on_state=on_state, on_request=on_request,
            on_response=on_response, transport=transport, **async_only,
        )
