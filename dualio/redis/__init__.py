"""dualio's async Redis face: ``from dualio.redis import Redis`` (docs/redis.md)."""

from dualio.redis.client import Redis
from dualio_transports.redis_protocol.errors import (
    AskError,
    BusyError,
    ClusterDownError,
    ExecAbortError,
    LoadingError,
    MovedError,
    NoPermissionError,
    NoScriptError,
    ReadOnlyError,
    RedisError,
    TryAgainError,
    WrongTypeError,
)

__all__ = [
    "AskError",
    "BusyError",
    "ClusterDownError",
    "ExecAbortError",
    "LoadingError",
    "MovedError",
    "NoPermissionError",
    "NoScriptError",
    "ReadOnlyError",
    "Redis",
    "RedisError",
    "TryAgainError",
    "WrongTypeError",
]
