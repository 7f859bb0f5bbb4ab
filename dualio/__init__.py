"""dualio's async face: ``from dualio import AsyncClient``."""

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
