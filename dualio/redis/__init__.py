"""dualio's async Redis face: ``from dualio.redis import Redis`` (docs/redis.md)."""

from dualio.redis.client import Redis
from dualio_transports.redis_protocol.errors import (
    AskError,
    BusyError,
    ClusterDownError,
    ExecAbortError,
    LoadingError,
    LockError,
    LockNotOwnedError,
    MovedError,
    NoPermissionError,
    NoScriptError,
    ReadOnlyError,
    RedisError,
    TryAgainError,
    WatchError,
    WrongTypeError,
)

__all__ = [
    "AskError",
    "BusyError",
    "ClusterDownError",
    "ExecAbortError",
    "LoadingError",
    "LockError",
    "LockNotOwnedError",
    "MovedError",
    "NoPermissionError",
    "NoScriptError",
    "ReadOnlyError",
    "Redis",
    "RedisError",
    "TryAgainError",
    "WatchError",
    "WrongTypeError",
]
