"""The reference server: the service both faces talk to, in two server models."""

from dualio.server.async_model import AsyncServer
from dualio.server.embedded import EmbeddedServer
from dualio.server.threaded_model import ThreadedServer

__all__ = ["AsyncServer", "EmbeddedServer", "ThreadedServer"]
