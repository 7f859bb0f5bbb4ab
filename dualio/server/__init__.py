"""The reference server: the service both faces talk to, in three server models, each
run in one process or in several (dualio.server.workers)."""

from dualio.server.async_model import AsyncServer
from dualio.server.embedded import EmbeddedServer
from dualio.server.threaded_model import ThreadedServer

__all__ = ["AsyncServer", "EmbeddedServer", "ThreadedServer"]
