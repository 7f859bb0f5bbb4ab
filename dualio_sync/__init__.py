"""dualio's blocking face: ``from dualio_sync import Client``."""

from dualio_sync.client import Client
from transports.wire.errors import (
    AuthenticationError,
    CallCancelled,
    ClosedError,
    ConnectError,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    ErrorCode,
    FrameTooLarge,
    ProtocolError,
    RemoteError,
    UsageError,
)
from transports.wire.methods import ServerStats

__all__ = [
    "AuthenticationError",
    "CallCancelled",
    "Client",
    "ClosedError",
    "ConnectError",
    "ConnectTimeout",
    "DualioError",
    "DualioTimeout",
    "ErrorCode",
    "FrameTooLarge",
    "ProtocolError",
    "RemoteError",
    "ServerStats",
    "UsageError",
]
