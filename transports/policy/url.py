"""``dualio://`` URLs: where and how to connect, in one string (no I/O).

    dualio://[:TOKEN@]HOST[:PORT][?KEY=VALUE&...]

The port defaults to 7878. ``dualios://`` is the same with TLS (the system's
trusted certificates). Keys: ``timeout``, ``connect_timeout`` and ``keepalive``
(seconds, or ``none``), ``tls`` (``1``/``0``), ``server_hostname``,
``max_frame_size`` and ``lazy`` (``1``/``0``). Anything else is a ValueError, so
a typo never passes silently. The token is percent-decoded; put it in the
password position (``dualio://:s3cret@host``) so it is not shown as a user name.
"""

from __future__ import annotations

import ssl
from typing import Any, Self
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit

DEFAULT_PORT = 7878
_SECONDS = ("timeout", "connect_timeout", "keepalive")
_FLAGS = ("tls", "lazy")
_KEYS = frozenset({*_SECONDS, *_FLAGS, "server_hostname", "max_frame_size"})


def split_url(
    url: str, schemes: tuple[str, ...], kind: str, default_port: int,
) -> tuple[SplitResult, dict[str, Any]]:
    """A client URL's parts, and the ``host`` and ``port`` keyword arguments it names;
    TypeError or ValueError (saying it is not ``kind``) for one that is not of ``schemes``."""
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    parts = urlsplit(url)
    if parts.scheme not in schemes:
        raise ValueError(f"not a {kind} URL: {url!r}")
    if not parts.hostname:
        raise ValueError(f"no host in {url!r}")
    try:
        port = parts.port or default_port
    except ValueError as exc:
        raise ValueError(f"bad port in {url!r}: {exc}") from None
    return parts, {"host": parts.hostname, "port": port}


def query_items(parts: SplitResult, url: str, known: frozenset[str]) -> list[tuple[str, str]]:
    """A client URL's ``?key=value`` pairs; a ValueError for a key not ``known``."""
    items = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    for key, _ in items:
        if key not in known:
            raise ValueError(f"unknown key {key!r} in {url!r}; known: {', '.join(sorted(known))}")
    return items


def seconds(key: str, value: str) -> float | None:
    """A URL's seconds (``timeout=5``), or ``none`` for no limit."""
    return None if value.lower() == "none" else _number(key, value)


def parse_url(url: str) -> dict[str, Any]:
    """The client keyword arguments a ``dualio://`` URL stands for."""
    parts, options = split_url(url, ("dualio", "dualios"), "dualio://", DEFAULT_PORT)
    if parts.path not in ("", "/"):
        raise ValueError(f"a dualio URL has no path: {parts.path!r}")
    if parts.password is not None or parts.username:
        options["token"] = unquote(parts.password if parts.password is not None else parts.username or "")
    tls = parts.scheme == "dualios"
    for key, value in query_items(parts, url, _KEYS):
        if key in _SECONDS:
            options[key] = seconds(key, value)
        elif key in _FLAGS:
            if value not in ("0", "1"):
                raise ValueError(f"{key} must be 0 or 1, got {value!r}")
            if key == "tls":
                tls = value == "1"
            else:
                options[key] = value == "1"
        elif key == "max_frame_size":
            options[key] = int(_number(key, value))
        else:
            options[key] = value
    if tls:
        options["tls"] = ssl.create_default_context()
    return options


def _number(key: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{key} must be a number, got {value!r}") from None


class FromUrl:
    """``from_url``, the same on both faces."""

    @classmethod
    def from_url(cls, url: str, **options: Any) -> Self:
        """A client for ``dualio://[:token@]host[:port][?timeout=5&tls=1&...]``; keyword
        arguments override what the URL says (docs/api.md lists the keys)."""
        return cls(**{**parse_url(url), **options})
