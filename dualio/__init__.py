"""dualio's async face: ``from dualio import AsyncClient``."""

from dualio.client import AsyncClient
from transports.callbacks import AwaitableCallback, EventedCallback
from transports.emulate import emulate_async
from transports.errors import (
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
from transports.methods import ServerStats

__all__ = [
    "AsyncClient",
    "AuthenticationError",
    "AwaitableCallback",
    "CallCancelled",
    "ClosedError",
    "ConnectError",
    "ConnectTimeout",
    "DualioError",
    "DualioTimeout",
    "ErrorCode",
    "EventedCallback",
    "FrameTooLarge",
    "ProtocolError",
    "RemoteError",
    "ServerStats",
    "UsageError",
    "emulate_async",
]
