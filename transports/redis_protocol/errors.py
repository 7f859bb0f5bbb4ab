"""The errors a Redis server's error replies mean: a command's (:class:`RedisError`), and
the handshake's (:func:`handshake_error`)."""

from __future__ import annotations

from dualio_transports.redis_protocol.resp import ErrorReply
from dualio_transports.wire.errors import (
    AuthenticationError,
    ConnectError,
    RemoteError,
    VersionMismatch,
)

RETRYABLE_CODES = frozenset({"BUSY", "LOADING", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN"})
"""Codes of errors that say the server did not run the command and may later."""
AUTHENTICATION_CODES = frozenset({"WRONGPASS", "NOAUTH", "NOPERM"})


class RedisError(RemoteError):
    """A Redis server answered a command with an error reply.

    A :class:`RemoteError`, as protocol v1's error answers are, so ``except RemoteError``
    catches a server's refusal whatever the protocol. Its ``code`` and ``prefix`` are the
    error's code word (``ERR``, ``WRONGTYPE``, ``MOVED``; ``""`` when the text starts with
    none), ``message`` the rest; ``str()`` is the text as the server wrote it.
    """

    code: str

    def __init__(self, text: str) -> None:
        prefix = ErrorReply(text).code
        super().__init__(text, code=prefix, retryable=prefix in RETRYABLE_CODES)
        self.prefix = prefix
        self.message = text[len(prefix) :].lstrip() if prefix else text


class WrongTypeError(RedisError):
    """WRONGTYPE: the key holds another kind of value than the command works on."""


class NoScriptError(RedisError):
    """NOSCRIPT: no script of that SHA1 is loaded (EVALSHA)."""


class NoPermissionError(RedisError):
    """NOPERM: the user's ACL does not allow the command or the key."""


class BusyError(RedisError):
    """BUSY: a script or function is running; the server may run the command later."""


class LoadingError(RedisError):
    """LOADING: the server is loading its data set; it may run the command later."""


class ReadOnlyError(RedisError):
    """READONLY: a write sent to a replica."""


class ExecAbortError(RedisError):
    """EXECABORT: a transaction did not run, a command of it refused as it was queued."""


class MovedError(RedisError):
    """MOVED: in a cluster, the key's slot is served by another node, for good."""


class AskError(RedisError):
    """ASK: in a cluster, the key's slot is moving; ask the other node, this once."""


class TryAgainError(RedisError):
    """TRYAGAIN: in a cluster, a multi-key command met a slot being moved; try again later."""


class ClusterDownError(RedisError):
    """CLUSTERDOWN: the cluster cannot serve the slot now."""


class WatchError(RedisError):
    """A key a watch watched changed before EXEC: the transaction did not run (EXEC's
    reply was a null). Not an error reply: its ``prefix`` is ``""``."""


class ShardMovedError(RedisError):
    """A cluster node unsubscribed a shard subscription itself (``sunsubscribe``): the
    channels' slot is another node's now. Not an error reply: its ``prefix`` is ``""``."""


class LockError(RedisError):
    """A lock could not be taken in the time given, or was not held by who released or
    extended it (:class:`LockNotOwnedError`). Not an error reply: its ``prefix`` is ``""``."""


class LockNotOwnedError(LockError):
    """A lock released or extended by a holder whose lease had run out: another holder
    may have it now, and it is left as it is."""


BY_PREFIX: dict[str, type[RedisError]] = {
    "WRONGTYPE": WrongTypeError, "NOSCRIPT": NoScriptError, "NOPERM": NoPermissionError, "BUSY": BusyError,
    "LOADING": LoadingError, "READONLY": ReadOnlyError, "EXECABORT": ExecAbortError, "MOVED": MovedError,
    "ASK": AskError, "TRYAGAIN": TryAgainError, "CLUSTERDOWN": ClusterDownError,
}
"""The class of a server's error reply by its first word; any other is a :class:`RedisError`."""


def redis_error(text: str) -> RedisError:
    """The error a server's error reply ``text`` means: the class of its prefix."""
    return BY_PREFIX.get(ErrorReply(text).code, RedisError)(text)


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
