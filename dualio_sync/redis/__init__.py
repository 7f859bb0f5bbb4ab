"""dualio's blocking Redis face: ``from dualio_sync.redis import Redis`` (docs/redis.md).

GENERATED from dualio/redis/__init__.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from dualio_sync.redis.client import Redis
from dualio_sync.redis.cluster import RedisCluster
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
