"""dualio's blocking face: ``from dualio_sync import Client``."""

from dualio_sync.client import Client
from transports.errors import (
    AuthenticationError,
    ClosedError,
    ConnectError,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    FrameTooLarge,
    ProtocolError,
    RemoteError,
    UsageError,
)
from transports.methods import ServerStats

__all__ = [
    "AuthenticationError",
    "Client",
    "ClosedError",
    "ConnectError",
    "ConnectTimeout",
    "DualioError",
    "DualioTimeout",
    "FrameTooLarge",
    "ProtocolError",
    "RemoteError",
    "ServerStats",
    "UsageError",
]
