"""dualio's async Redis face: ``from dualio.redis import Redis`` (docs/redis.md)."""

from dualio.redis.client import Redis
from dualio.redis.cluster import RedisCluster
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
    ShardMovedError,
    TryAgainError,
    WatchError,
    WrongTypeError,
)
from dualio_transports.redis_protocol.message import Message
from dualio_transports.redis_protocol.tracking import CacheStats, ClientCache

__all__ = [
    "AskError",
    "BusyError",
    "CacheStats",
    "ClientCache",
    "ClusterDownError",
    "ExecAbortError",
    "LoadingError",
    "LockError",
    "LockNotOwnedError",
    "Message",
    "MovedError",
    "NoPermissionError",
    "NoScriptError",
    "ReadOnlyError",
    "Redis",
    "RedisCluster",
    "RedisError",
    "ShardMovedError",
    "TryAgainError",
    "WatchError",
    "WrongTypeError",
]
