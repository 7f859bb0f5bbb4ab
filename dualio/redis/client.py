"""The async Redis face: ``async with Redis() as r: await r.set("k", "v")``."""

from __future__ import annotations

import functools
import ssl
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal, Unpack, cast, overload

from dualio.redis.commands import DEFAULT_PORT, AsyncRedisCommands, redis_protocol
from dualio.redis.method_support import S
from dualio.redis.sentinel import SENTINEL_RETRY, SENTINEL_TIMEOUT, Address, Sentinels, check_sentinels
from dualio.toolkit import (
    DEFAULT_RETRY,
    HELD_CONNECTIONS,
    AsyncFace,
    AsyncOnly,
    ConnectOptions,
    RequestCallback,
    ResponseCallback,
    RetryPolicy,
    StateCallback,
    TransportName,
    check_timeout,
)
from dualio_transports.redis_protocol.resp import MAX_REPLY
from dualio_transports.redis_protocol.tracking import ClientCache

__all__ = ["Redis"]


class Redis(AsyncRedisCommands[S], AsyncFace):
    """A Redis client (RESP3; RESP2 before Redis 6) over one connection that concurrent
    calls share: their commands are pipelined, and each reply reaches its caller in order.

    ``transport`` picks how calls wait (:data:`TransportName`); how the client is opened
    and shared is :class:`AsyncFace`'s. ``password`` (and ``username``, for an
    ACL user) authenticate with HELLO, ``db`` is SELECTed and ``client_name`` set on every
    connection. ``unix_socket_path`` connects to a Unix socket instead of ``host`` and
    ``port``. ``max_reply_size`` bounds one reply's bytes (512 MiB, as Redis bounds a
    value): a reply over it fails its call with FrameTooLarge, and the client goes on, on
    a new connection. ``cache`` (a :class:`ClientCache`) keeps the replies of reads of
    one key (GET, HGET, HGETALL, ...) in memory, kept fresh by the server's invalidations
    (RESP3 ``CLIENT TRACKING``; docs/redis.md). ``readonly=True`` sends READONLY on every
    connection: a Redis Cluster replica then answers reads of its primary's slots.
    ``decode_responses=True`` returns ``str``
    where Redis sends strings (``Redis[str]``; otherwise ``bytes``, ``Redis[bytes]``). A
    lost connection is opened again by the next call, and commands safe to repeat are
    retried, as ``retry`` allows. docs/redis.md says what is not offered yet.
    """

    @overload
    def __init__(
        self: Redis[bytes], host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
        password: str | None = None, username: str | None = None, db: int = 0,
        client_name: str | None = None, unix_socket_path: str | None = None, timeout: float | None = 30.0,
        connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None, server_hostname: str | None = None, keepalive: float | None = 15.0,
        retry: RetryPolicy | None = DEFAULT_RETRY, decode_responses: Literal[False] = False,
        lazy: bool = False,
        on_state: StateCallback | None = None, on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None, held_connections: int = HELD_CONNECTIONS,
        max_reply_size: int = MAX_REPLY, cache: ClientCache | None = None, readonly: bool = False,
        sentinels: Sequence[Address] = (), service_name: str | None = None,
        sentinel_timeout: float | None = SENTINEL_TIMEOUT, sentinel_password: str | None = None,
        transport: TransportName = "native", **async_only: Unpack[AsyncOnly],
    ) -> None: ...

    @overload
    def __init__(
        self: Redis[str], host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
        password: str | None = None, username: str | None = None, db: int = 0,
        client_name: str | None = None, unix_socket_path: str | None = None, timeout: float | None = 30.0,
        connect_timeout: float | None = 10.0,
        tls: ssl.SSLContext | None = None, server_hostname: str | None = None, keepalive: float | None = 15.0,
        retry: RetryPolicy | None = DEFAULT_RETRY, decode_responses: Literal[True],
        lazy: bool = False,
        on_state: StateCallback | None = None, on_request: RequestCallback | None = None,
        on_response: ResponseCallback | None = None, held_connections: int = HELD_CONNECTIONS,
        max_reply_size: int = MAX_REPLY, cache: ClientCache | None = None, readonly: bool = False,
        sentinels: Sequence[Address] = (), service_name: str | None = None,
        sentinel_timeout: float | None = SENTINEL_TIMEOUT, sentinel_password: str | None = None,
        transport: TransportName = "native", **async_only: Unpack[AsyncOnly],
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
        unix_socket_path: str | None = None,
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
        max_reply_size: int = MAX_REPLY,
        cache: ClientCache | None = None,
        readonly: bool = False,
        sentinels: Sequence[Address] = (),
        service_name: str | None = None,
        sentinel_timeout: float | None = SENTINEL_TIMEOUT,
        sentinel_password: str | None = None,
        transport: TransportName = "native",
        **async_only: Unpack[AsyncOnly],
    ) -> None:
        self._sentinels: Sentinels | None = None
        if sentinels or service_name is not None:
            if unix_socket_path is not None:
                raise ValueError("the primary sentinels name is reached over TCP: give no unix_socket_path")
            settings: dict[str, Any] = {
                "timeout": sentinel_timeout, "connect_timeout": sentinel_timeout,
                "password": sentinel_password, "retry": None, "lazy": True, "decode_responses": True,
                "tls": tls, "transport": transport, "keepalive": None, **async_only,
            }
            addresses = check_sentinels(sentinels, service_name)
            Redis(*addresses[0], **settings)  # every sentinel setting checked now, as Redis checks it
            self._sentinels = Sentinels(
                addresses, cast(str, service_name), check_timeout("sentinel_timeout", sentinel_timeout),
                functools.partial(Redis, **settings),
            )
            if retry is DEFAULT_RETRY:
                retry = SENTINEL_RETRY
        protocol = redis_protocol(username, password, client_name, db, max_reply_size, cache, readonly)
        options = ConnectOptions(
            host, port, connect_timeout, tls, server_hostname, keepalive=keepalive, protocol=protocol,
            unix_path=unix_socket_path,
        )
        self._setup_commands(decode_responses)
        if cache is not None:
            cache.attach(self)
            self._cache = cache
        self.db = db
        super().__init__(
            options, timeout=timeout, retry=retry, lazy=lazy, on_state=on_state, on_request=on_request,
            on_response=on_response, transport=transport, held_connections=held_connections, **async_only,
        )

    async def locate_server(self, options: ConnectOptions, until: float) -> ConnectOptions:
        """With ``sentinels``: the primary they name now (dualio/redis/sentinel.py);
        else ``options`` as they are."""
        if self._sentinels is None:
            return options
        host, port = await self._sentinels.primary(until)
        if (host, port) != (options.host, options.port):
            options = replace(options, host=host, port=port)
            self.host, self.port = host, port
        return options

    async def aclose(self) -> None:
        """Close the connection (and the sentinels', with ``sentinels``); calls still
        waiting raise ClosedError. Idempotent."""
        try:
            await super().aclose()
        finally:
            if self._sentinels is not None:
                await self._sentinels.aclose()
