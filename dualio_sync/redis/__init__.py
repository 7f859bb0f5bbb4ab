"""dualio's blocking Redis face: ``from dualio_sync.redis import Redis`` (docs/redis.md)."""

from dualio_sync.redis.client import Redis
from dualio_transports.redis_protocol.errors import RedisError

__all__ = ["Redis", "RedisError"]
