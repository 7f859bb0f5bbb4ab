"""dualio's async Redis face: ``from dualio.redis import Redis`` (docs/redis.md)."""

from dualio.redis.client import Redis
from dualio_transports.redis_protocol.errors import RedisError

__all__ = ["Redis", "RedisError"]
