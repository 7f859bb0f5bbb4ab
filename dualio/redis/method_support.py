"""What the Redis command methods (:mod:`dualio.redis.methods`, generated from Redis's
command spec) stand on: a reply read into the type its schema promises, arguments checked
before anything is sent, and a command the server holds sent on a connection of its own.

A reply whose shape is not the one the schema promises (an older or newer server) is
returned as it came (its literal value, strings decoded with ``decode_responses``),
never raised as an error of the conversion.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Generic, TypeVar

from dualio.toolkit import UNSET, AsyncFace, CallKind, ProtocolError, Request, Unset, check_timeout
from dualio_transports.redis_protocol.resp import Value, parse
from dualio_transports.redis_protocol.tracking import ClientCache

S = TypeVar("S", bytes, str)
"""What a string reply is: ``bytes``, or ``str`` with ``decode_responses=True``."""
T = TypeVar("T")
Arg = bytes | str | int | float
"""A key, a value or any argument of a command (``str`` is sent as UTF-8)."""
Timeout = float | Unset | None

_UNARY = CallKind.UNARY
_request = tuple.__new__  # a Request without NamedTuple's Python-level __new__ (one is made per call)
_ARGUMENT = (bytes, str, int, float)


def _text(value: Value) -> Value:
    """``value`` with every bytes in it decoded from UTF-8 (``decode_responses=True``); a
    ProtocolError, for this call only, where one is not UTF-8."""
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError as exc:
            raise ProtocolError(
                f"a reply is not UTF-8 text ({exc.reason} at byte {exc.start}): "
                "read it with decode_responses=False"
            ) from None
    if isinstance(value, list):
        return [_text(item) for item in value]
    if isinstance(value, dict):
        return {_text(key): _text(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return type(value)(_text(item) for item in value)
    if isinstance(value, tuple):
        return tuple(_text(item) for item in value)
    return value


def _many(value: Arg | Sequence[Arg]) -> Sequence[Arg]:
    """One argument or several: ``"k"`` or ``["k1", "k2"]``."""
    if isinstance(value, _ARGUMENT):
        return (value,)
    if isinstance(value, list | tuple):
        return value
    raise TypeError(f"expected bytes, str, int or float, or a list or tuple of them: {type(value).__name__}")


def _flat(values: tuple[Arg | Sequence[Arg], ...]) -> Sequence[Arg]:
    """``*keys`` given one by one, or as sequences (redis-py's ``mget(["a", "b"])``)."""
    for value in values:
        if not isinstance(value, _ARGUMENT):
            return [item for value in values for item in _many(value)]
    return values  # type: ignore[return-value]  # every one an Arg


def _seconds(value: int | timedelta) -> int:
    """A length of time in whole seconds: an int as it is, a timedelta's."""
    return int(value.total_seconds()) if isinstance(value, timedelta) else value


def _milliseconds(value: int | timedelta) -> int:
    """A length of time in whole milliseconds: an int as it is, a timedelta's."""
    return int(value.total_seconds() * 1000) if isinstance(value, timedelta) else value


def _one_of(method: str, *given: tuple[str, object]) -> None:
    """A ValueError, before anything is sent, when options that exclude each other are
    given together (the server would refuse them with a syntax error)."""
    chosen = [name for name, value in given if value is not None and value is not False]
    if len(chosen) > 1:
        raise ValueError(f"{method}(): {' and '.join(chosen)} exclude each other: give one")


_GOOD = object()


def _bad(value: object, kind: str) -> object:
    """The part of ``value`` that is not what a parameter of ``kind`` takes, or ``_GOOD``."""
    if kind == "duration":
        return _GOOD if isinstance(value, timedelta) or value.__class__ is int else value
    if kind == "arg":
        return _GOOD if isinstance(value, _ARGUMENT) and not isinstance(value, bool) else value
    if kind == "pairs":
        if not isinstance(value, Mapping):
            return value
        items = (item for pair in value.items() for item in pair)
        return next((item for item in items if _bad(item, "arg") is not _GOOD), _GOOD)
    if isinstance(value, _ARGUMENT):
        return _bad(value, "arg")
    if not isinstance(value, Sequence):
        return value
    inner = "many" if kind in ("rows", "flat") else "arg"
    return next((item for item in value if _bad(item, inner) is not _GOOD), _GOOD)


def _wrong(method: str, *params: tuple[str, object, str]) -> TypeError:
    """The TypeError naming the first parameter of ``method`` given what it does not take
    (None is what an optional parameter is when it is not given)."""
    for name, value, kind in params:
        if value is None:
            continue
        bad = _bad(value, kind)
        if bad is not _GOOD:
            what = {
                "arg": "bytes, str, int or float", "many": "bytes, str, int or float, or a sequence of them",
                "pairs": "a mapping of bytes, str, int or float", "rows": "a sequence of tuples",
                "flat": "bytes, str, int or float, or sequences of them", "duration": "an int or a timedelta",
            }[kind]
            return TypeError(f"{method}(): {name} must be {what}, not {type(bad).__name__}: {bad!r:.60}")
    return TypeError(f"{method}(): an argument is not bytes, str, int or float")


def _number_or_text(text: str) -> int | float | str:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _as_is(raw: bytes) -> bytes:
    return raw


def _key_bytes(key: Arg) -> bytes:
    """A key as the server names it in an invalidation."""
    if isinstance(key, bytes):
        return key
    if isinstance(key, str):
        return key.encode()
    return repr(key).encode()


class AsyncMethodSupport(AsyncFace, Generic[S]):
    """The readers of replies and the sending of held commands the command methods use."""

    decode_responses: bool
    _cache: ClientCache | None = None

    def _value(self, raw: bytes) -> Any:
        if self.decode_responses:
            return _text(parse(raw))
        return parse(raw)

    def _literal(self, value: Value) -> Any:
        return _text(value) if self.decode_responses else value

    def _string(self, raw: bytes) -> S | None:
        if raw[0] == 0x24:  # b"$": a bulk string the reader found whole, or $-1
            if raw[3] == 0x0A:  # its header's LF: a length of one digit
                value = raw[4:-2]
            elif raw[4] == 0x0A:  # two digits, or $-1
                value = raw[5:-2]
                if not value and raw[1] == 0x2D:
                    return None
            else:
                value = raw[raw.index(b"\n") + 1 : -2]
        elif raw[0] == 0x5F:  # b"_": a null
            return None
        else:
            value = parse(raw)
        if self.decode_responses:
            return _text(value)  # type: ignore[no-any-return]
        return value  # type: ignore[return-value]

    def _integer(self, raw: bytes) -> Any:
        value = parse(raw)
        return value if value.__class__ is int else self._literal(value)

    def _flag(self, raw: bytes) -> Any:
        """A reply of 1 (yes) or 0 (no) as True or False."""
        value = parse(raw)
        return value == 1 if value in (0, 1) and value.__class__ is int else self._literal(value)

    def _number(self, raw: bytes) -> Any:
        """A double (RESP3), or its text (RESP2)."""
        value = parse(raw)
        if isinstance(value, bytes):
            try:
                return float(value)
            except ValueError:
                pass
        return value if isinstance(value, float) else self._literal(value)

    def _okay(self, raw: bytes) -> Any:
        """True for OK."""
        value = parse(raw)
        return True if value == b"OK" else self._literal(value)

    def _mapping(self, raw: bytes) -> Any:
        """A map; from RESP2, which has none, a flat list of keys and values."""
        value = self._value(raw)
        if isinstance(value, builtins.list) and len(value) % 2 == 0:
            return dict(zip(value[::2], value[1::2], strict=True))
        return value

    def _members(self, raw: bytes) -> Any:
        """A set; from RESP2, which has none, a list."""
        value = self._value(raw)
        if isinstance(value, builtins.list):
            try:
                return builtins.set(value)
            except TypeError:  # items that cannot be in a set: the reply as it came
                return value
        return value

    def _pair(self, raw: bytes) -> Any:
        """A popped ``(list, item)`` as a tuple, or None."""
        value = self._value(raw)
        return tuple(value) if isinstance(value, builtins.list) and len(value) == 2 else value

    def _triple(self, raw: bytes) -> Any:
        """A popped ``(sorted set, member, score)`` as a tuple, or None."""
        value = self._value(raw)
        if isinstance(value, builtins.list) and len(value) == 3:
            try:
                return value[0], value[1], float(value[2])
            except (TypeError, ValueError):
                pass
        return value

    def _scored(self, raw: bytes) -> Any:
        """Members with their scores as ``(member, score)`` tuples: from RESP3's
        ``[member, score]`` pairs, or RESP2's flat list of members and scores."""
        value = self._value(raw)
        if not isinstance(value, builtins.list):
            return value
        if all(isinstance(item, builtins.list) and len(item) == 2 for item in value):
            pairs = value
        elif len(value) % 2 == 0:
            pairs = builtins.list(zip(value[::2], value[1::2], strict=True))
        else:
            return value
        try:
            return [(member, float(score)) for member, score in pairs]
        except (TypeError, ValueError):
            return value

    def _info(self, raw: bytes) -> Any:
        """INFO's text as a dict, as redis-py reads it: each ``key:value`` line (sections'
        ``#`` lines left out), a number as an int or a float, ``a=1,b=2`` as a dict."""
        value = parse(raw)
        if not isinstance(value, bytes):
            return self._literal(value)
        info: dict[str, Any] = {}
        for line in value.decode(errors="replace").splitlines():
            if not line or line.startswith("#") or ":" not in line:
                continue
            key, _, text = line.partition(":")
            if ("=" in text and "," in text) or (text.count("=") == 1 and key.startswith("db")):
                info[key] = {part.partition("=")[0]: _number_or_text(part.partition("=")[2])
                             for part in text.split(",")}
            else:
                info[key] = _number_or_text(text)
        return info

    def _entries(self, raw: bytes) -> Any:
        """A stream's entries as ``(id, fields)`` tuples, the fields a dict."""
        return self._as_entries(self._value(raw))

    def _as_entries(self, value: Any) -> Any:
        if not isinstance(value, builtins.list):
            return value
        entries = []
        for entry in value:
            if not (isinstance(entry, builtins.list) and len(entry) == 2):
                return value
            if not isinstance(entry[1], builtins.list):
                return value
            fields = entry[1]
            entries.append((entry[0], dict(zip(fields[::2], fields[1::2], strict=False))))
        return entries

    def _streams(self, raw: bytes) -> Any:
        """XREAD's streams: a dict of each stream's name to its entries (RESP3's map; from
        RESP2's list of pairs the same), or None when none came."""
        value = self._value(raw)
        if isinstance(value, builtins.list) and all(
            isinstance(pair, builtins.list) and len(pair) == 2 for pair in value
        ):
            value = {name: entries for name, entries in value}
        if not isinstance(value, dict):
            return value
        return {name: self._as_entries(entries) for name, entries in value.items()}

    async def _cached(self, request: Request[T], key: Arg, timeout: Timeout) -> T:
        """A read of one key through the client-side cache (``tracking``): from memory
        while the connection is open and nothing unread waits on it; else from the
        server, the reply kept unless an invalidation came meanwhile."""
        cache = self._cache
        assert cache is not None
        if not self.has_pending_input():
            kept = cache.get(request.args)
            if kept is not None:
                return request.decode(kept)
        else:
            cache.missed()
        generation = cache.generation  # before the command is sent
        method, args, idempotent = request.method, request.args, request.idempotent
        raw: Request[bytes] = _request(Request, (method, args, _as_is, idempotent, 1, _UNARY))
        reply = await self.request(raw, timeout)
        cache.put(request.args, _key_bytes(key), reply, generation)
        return request.decode(reply)

    async def _held_command(self, request: Request[T], wait: float, timeout: Timeout) -> T:
        """A command the server holds for up to ``wait`` seconds (0: for ever), on a
        connection of its own; the call's ``timeout`` defaults to ``wait`` plus the
        client's timeout (none with ``wait=0``)."""
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait < float("inf"):
            raise ValueError(f"wait must be a number of seconds, 0 or more (0: for ever), not {wait!r}")
        if timeout is UNSET:
            client = self.timeout
            timeout = None if client is None or wait == 0 else wait + client
        return await self.request(request, check_timeout("timeout", timeout), held=True)
