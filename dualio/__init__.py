"""dualio's async face: ``from dualio import AsyncClient``."""

from dualio.client import AsyncClient
from transports.emulation.adapter import emulate_async
from transports.emulation.callbacks import AwaitableCallback, EventedCallback
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
