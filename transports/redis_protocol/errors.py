"""The errors a Redis server's error replies mean: a command's (:class:`RedisError`), and
the handshake's (:func:`handshake_error`)."""

from __future__ import annotations

from dualio_transports.redis_protocol.resp import ErrorReply
from dualio_transports.wire.errors import (
    AuthenticationError,
    ConnectError,
    DualioError,
    RemoteError,
    VersionMismatch,
)

RETRYABLE_CODES = frozenset({"BUSY", "LOADING", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN"})
"""Codes of errors that say the server did not run the command and may later."""
AUTHENTICATION_CODES = frozenset({"WRONGPASS", "NOAUTH", "NOPERM"})


class RedisError(RemoteError):
    """A Redis server answered a command with an error reply.

    A :class:`RemoteError`, as protocol v1's error answers are, so ``except RemoteError``
    catches a server's refusal whatever the protocol. Redis errors have no number: their
    ``code`` is 0, and ``prefix`` is the error's code word (``ERR``, ``WRONGTYPE``,
    ``MOVED``; ``""`` when the text starts with none), ``message`` the rest.
    """

    def __init__(self, text: str) -> None:
        DualioError.__init__(self, text)  # the text as the server wrote it, not RemoteError's
        self.prefix = ErrorReply(text).code
        self.message = text[len(self.prefix) :].lstrip() if self.prefix else text
        self.code = 0
        self.retryable = self.prefix in RETRYABLE_CODES


def refuses_hello(reply: ErrorReply) -> bool:
    """The error reply of a server that does not know HELLO (before Redis 6): it speaks RESP2."""
    return reply.text.startswith("ERR unknown command")


def handshake_error(command: str, reply: ErrorReply) -> ConnectError:
    """What an error reply to the handshake's ``command`` (AUTH, HELLO, CLIENT SETNAME or
    SELECT) means."""
    text = reply.text
    if reply.code in AUTHENTICATION_CODES:
        return AuthenticationError(f"the server refused the credentials: {text}")
    if command == "HELLO" and reply.code == "NOPROTO":
        return VersionMismatch(f"the server does not speak RESP3: {text}")
    return ConnectError(f"the server refused {command}: {text}")
