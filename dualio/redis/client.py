"""The async Redis face: ``async with Redis() as r: await r.set("k", "v")``."""

from __future__ import annotations

import ssl
from concurrent.futures import Executor
from typing import Literal, overload

from dualio.face_connection import AsyncFaceConnection, TransportName, check_transport
from dualio.redis.commands import DEFAULT_PORT, AsyncRedisCommands, S, redis_protocol
from dualio_transports.emulation.emulated_connection import Strategy
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.policy.events import RequestCallback, ResponseCallback, StateCallback
from dualio_transports.policy.held_connections import HELD_CONNECTIONS
from dualio_transports.policy.retry import DEFAULT_RETRY, RetryPolicy

__all__ = ["Redis"]


class Redis(AsyncRedisCommands[S], AsyncFaceConnection):
    """An async Redis client (RESP3; RESP2 before Redis 6) on asyncio, uvloop or trio, over
    one connection that concurrent calls share: their commands are pipelined, and each
    reply reaches its caller in order.

    ``transport`` is ``AsyncClient``'s: ``"native"`` (default; asyncio's fast path, or
    anyio on trio), ``"anyio"``, or ``"emulated"`` (the blocking transport from worker
    threads, with ``emulation``, ``max_workers`` and ``executor``). ``password`` (and
    ``username``, for an ACL user) authenticate with HELLO, ``db`` is SELECTed and
    ``client_name`` set on every connection. ``decode_responses=True`` returns ``str``
    where Redis sends strings (``Redis[str]``; otherwise ``bytes``, ``Redis[bytes]``).

    Open it with ``async with`` (or ``await r.open()`` and ``await r.aclose()``) in one
    task; use it from any task on that loop. Method names, parameters and defaults are
    those of ``dualio_sync.redis.Redis``; docs/redis.md says what is not offered yet.
    """

    @overload
    def __init__(
        self: Redis[bytes], host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
        password: str | None = None, username: str | None = None, db: int = 0,
        client_name: str | None = None, timeout: float | None = 30.0, connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None, server_hostname: str | None = None, keepalive: float | None = 15.0,
        retry: RetryPolicy | None = DEFAULT_RETRY, decode_responses: Literal[False] = False,
        lazy: bool = False,
        on_state: StateCallback | None = None, on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None, held_connections: int = HELD_CONNECTIONS,
        transport: TransportName = "native", emulation: Strategy = "pool", max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> None: ...

    @overload
    def __init__(
        self: Redis[str], host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
        password: str | None = None, username: str | None = None, db: int = 0,
        client_name: str | None = None, timeout: float | None = 30.0, connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None, server_hostname: str | None = None, keepalive: float | None = 15.0,
        retry: RetryPolicy | None = DEFAULT_RETRY, decode_responses: Literal[True],
        lazy: bool = False,
        on_state: StateCallback | None = None, on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None, held_connections: int = HELD_CONNECTIONS,
        transport: TransportName = "native", emulation: Strategy = "pool", max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> None: ...

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        password: str | None = None,
        username: str | None = None,
        db: int = 0,
        client_name: str | None = None,
        timeout: float | None = 30.0,
        connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None,
        server_hostname: str | None = None,
        keepalive: float | None = 15.0,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        decode_responses: bool = False,
        lazy: bool = False,
        on_state: StateCallback | None = None,
        on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None,
        held_connections: int = HELD_CONNECTIONS,
        transport: TransportName = "native",
        emulation: Strategy = "pool",
        max_workers: int | None = None,
        executor: Executor | None = None,
    ) -> None:
        check_transport(transport, emulation, max_workers, executor)
        protocol = redis_protocol(username, password, client_name, db)
        options = ConnectOptions(
            host, port, connect_timeout, tls, server_hostname, keepalive=keepalive, protocol=protocol
        )
        self._setup_commands(decode_responses)
        self.db = db
        self._setup(
            options, timeout=timeout, retry=retry, lazy=lazy, on_state=on_state, on_request=on_request,
            on_response=on_response, transport=transport, emulation=emulation, max_workers=max_workers,
            executor=executor, held_connections=held_connections,
        )

