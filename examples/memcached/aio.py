"""A memcached client: ``async with AsyncMemcache() as mc: await mc.set("k", b"v")``.

Written on dualio's public toolkit alone. sync.py, the blocking face, is generated from
this file: ``python -m dualio.unasync --config examples/memcached/unasync.toml``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TypeVar, Unpack

from dualio.toolkit import (
    DEFAULT_RETRY,
    UNSET,
    AsyncFace,
    AsyncOnly,
    ConnectOptions,
    ProtocolError,
    Request,
    RetryPolicy,
    TransportName,
    Unset,
)
from examples.memcached.protocol import Item, MemcacheProtocol, key_bytes, parse_items

T = TypeVar("T")
Timeout = float | Unset | None
Value = bytes | str
_STORED = {b"STORED": True, b"NOT_STORED": False, b"EXISTS": False, b"NOT_FOUND": False}
_DELETED = {b"DELETED": True, b"NOT_FOUND": False}
_TOUCHED = {b"TOUCHED": True, b"NOT_FOUND": False}


def _one_of(replies: dict[bytes, bool]) -> functools.partial[bool | None]:
    return functools.partial(_read_one_of, replies)


def _read_one_of(replies: dict[bytes, bool], reply: bytes) -> bool | None:
    if not reply:
        return None  # sent with noreply
    found = replies.get(reply)
    if found is None:
        raise ProtocolError(f"an unexpected reply: {reply[:80]!r}")
    return found


def _value(block: bytes) -> bytes | None:
    """The value of a one-key retrieval's block (``VALUE k f n\\r\\n<data>\\r\\n``)."""
    return block[block.index(b"\r\n") + 2 : -2] if block else None


def _item(block: bytes) -> Item | None:
    return next(iter(parse_items(block).values()), None)


def _number(reply: bytes) -> int | None:
    if not reply or reply == b"NOT_FOUND":
        return None  # sent with noreply, or no such key
    if not reply.isdigit():
        raise ProtocolError(f"an unexpected reply: {reply[:80]!r}")
    return int(reply)


def _text(reply: bytes) -> str:
    return reply.decode().removeprefix("VERSION ")


class AsyncMemcache(AsyncFace):
    """A memcached client over one connection that concurrent calls share, its requests
    pipelined and each reply matched to its caller in order.

    Every method takes ``timeout=`` (seconds; None: none; by default the client's). Keys are
    ``str`` or ``bytes`` (1-250 bytes, no spaces); values ``bytes`` or ``str`` (UTF-8),
    at most ``max_value`` bytes. ``noreply=True`` sends a write without waiting for its
    reply (the method returns None); a later call's reply says the connection still works.
    Reads are retried after a lost connection, as ``retry`` allows; writes are not.
    """

    def __init__(
        self, host: str = "127.0.0.1", port: int = 11211, *, timeout: float | None = 10.0,
        connect_timeout: float | None = 5.0, keepalive: float | None = 15.0, max_value: int = 1024 * 1024,
        retry: RetryPolicy | None = DEFAULT_RETRY, lazy: bool = False, transport: TransportName = "native",
        **async_only: Unpack[AsyncOnly],
    ) -> None:
        if isinstance(max_value, bool) or not isinstance(max_value, int) or max_value < 1:
            raise ValueError(f"max_value must be a positive int, not {max_value!r}")
        self.max_value = max_value
        protocol = functools.partial(MemcacheProtocol, max_value)
        options = ConnectOptions(host, port, connect_timeout, keepalive=keepalive, protocol=protocol)
        super().__init__(options, timeout=timeout, retry=retry, lazy=lazy, transport=transport, **async_only)

    # -- reads ------------------------------------------------------------------------

    async def get(self, key: str | bytes, *, timeout: Timeout = UNSET) -> bytes | None:
        """The value of ``key``, or None."""
        return await self.request(Request("get", b"get %s\r\n" % key_bytes(key), _value), timeout)

    async def get_many(self, keys: Iterable[str | bytes], *, timeout: Timeout = UNSET) -> dict[bytes, bytes]:
        """The values of those of ``keys`` that are set, by key, in one request."""
        items = await self._retrieve("get", keys, timeout)
        return {key: item.value for key, item in items.items()}

    async def gets(self, key: str | bytes, *, timeout: Timeout = UNSET) -> Item | None:
        """``key``'s value with its flags and CAS token (for :meth:`cas`), or None."""
        return await self.request(Request("gets", b"gets %s\r\n" % key_bytes(key), _item), timeout)

    async def gets_many(self, keys: Iterable[str | bytes], *, timeout: Timeout = UNSET) -> dict[bytes, Item]:
        """:meth:`gets` of each of ``keys`` that is set, by key, in one request."""
        return await self._retrieve("gets", keys, timeout)

    async def _retrieve(
        self, command: str, keys: Iterable[str | bytes], timeout: Timeout,
    ) -> dict[bytes, Item]:
        names = [key_bytes(key) for key in keys]
        if not names:
            return {}
        args = b"%s %s\r\n" % (command.encode(), b" ".join(names))
        return await self.request(Request(command, args, parse_items), timeout)

    # -- writes -----------------------------------------------------------------------

    async def set(
        self, key: str | bytes, value: Value, *, expire: int = 0, flags: int = 0, noreply: bool = False,
        timeout: Timeout = UNSET,
    ) -> bool | None:
        """Store ``value`` under ``key`` (for ``expire`` seconds; 0: for good). True: stored."""
        return await self._store("set", key, value, expire, flags, noreply, timeout)

    async def add(
        self, key: str | bytes, value: Value, *, expire: int = 0, flags: int = 0, noreply: bool = False,
        timeout: Timeout = UNSET,
    ) -> bool | None:
        """:meth:`set`, only if ``key`` is not set; False if it was."""
        return await self._store("add", key, value, expire, flags, noreply, timeout)

    async def replace(
        self, key: str | bytes, value: Value, *, expire: int = 0, flags: int = 0, noreply: bool = False,
        timeout: Timeout = UNSET,
    ) -> bool | None:
        """:meth:`set`, only if ``key`` is set; False if it was not."""
        return await self._store("replace", key, value, expire, flags, noreply, timeout)

    async def cas(
        self, key: str | bytes, value: Value, token: int, *, expire: int = 0, flags: int = 0,
        noreply: bool = False, timeout: Timeout = UNSET,
    ) -> bool | None:
        """:meth:`set`, only if ``key`` is unchanged since :meth:`gets` gave ``token``;
        False if it changed or is gone."""
        if isinstance(token, bool) or not isinstance(token, int) or token < 0:
            raise ValueError(f"a CAS token is an int from gets(), not {token!r}")
        return await self._store("cas", key, value, expire, flags, noreply, timeout, b" %d" % token)

    async def _store(
        self, command: str, key: str | bytes, value: Value, expire: int, flags: int, noreply: bool,
        timeout: Timeout, extra: bytes = b"",
    ) -> bool | None:
        data = value.encode() if isinstance(value, str) else value
        if not isinstance(data, bytes):
            raise TypeError(f"a value is bytes or str, not {type(value).__name__}")
        if len(data) > self.max_value:
            raise ValueError(f"a value of {len(data)} bytes, over max_value={self.max_value}")
        for name, number in (("expire", expire), ("flags", flags)):
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < 2**32:
                raise ValueError(f"{name} must be an int in 0..2**32-1, not {number!r}")
        head = b"%s %s %d %d %d%s" % (command.encode(), key_bytes(key), flags, expire, len(data), extra)
        return await self._write(command, head, noreply, _one_of(_STORED), timeout, data)

    async def _write(
        self, command: str, head: bytes, noreply: bool, decode: Callable[[bytes], T], timeout: Timeout,
        data: bytes | None = None,
    ) -> T:
        """A write: ``head``, `` noreply`` if asked (its reply is None), then ``data``'s block."""
        args = head + (b" noreply\r\n" if noreply else b"\r\n") + (b"" if data is None else data + b"\r\n")
        return await self.request(Request(command, args, decode, False, 0 if noreply else 1), timeout)

    async def delete(
        self, key: str | bytes, *, noreply: bool = False, timeout: Timeout = UNSET,
    ) -> bool | None:
        """Remove ``key``; False if it was not set."""
        return await self._write("delete", b"delete " + key_bytes(key), noreply, _one_of(_DELETED), timeout)

    async def incr(
        self, key: str | bytes, by: int = 1, *, noreply: bool = False, timeout: Timeout = UNSET,
    ) -> int | None:
        """Add ``by`` to the number stored under ``key``: the new number, or None if not set."""
        return await self._count("incr", key, by, noreply, timeout)

    async def decr(
        self, key: str | bytes, by: int = 1, *, noreply: bool = False, timeout: Timeout = UNSET,
    ) -> int | None:
        """Subtract ``by`` (memcached stops at 0): the new number, or None if not set."""
        return await self._count("decr", key, by, noreply, timeout)

    async def _count(
        self, command: str, key: str | bytes, by: int, noreply: bool, timeout: Timeout,
    ) -> int | None:
        if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by < 2**64:
            raise ValueError(f"by must be an int in 0..2**64-1, not {by!r}")
        head = b"%s %s %d" % (command.encode(), key_bytes(key), by)
        return await self._write(command, head, noreply, _number, timeout)

    async def touch(self, key: str | bytes, expire: int, *, timeout: Timeout = UNSET) -> bool:
        """Give ``key`` a new expiry; False if it is not set."""
        if isinstance(expire, bool) or not isinstance(expire, int) or expire < 0:
            raise ValueError(f"expire must be an int of 0 or more, not {expire!r}")
        return bool(await self.request(Request("touch", b"touch %s %d\r\n" % (key_bytes(key), expire),
                                                _one_of(_TOUCHED)), timeout))

    async def version(self, *, timeout: Timeout = UNSET) -> str:
        """The server's version."""
        return await self.request(Request("version", b"version\r\n", _text), timeout)
