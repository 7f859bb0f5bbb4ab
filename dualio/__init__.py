"""dualio's async face: ``from dualio import AsyncClient``."""

from dualio.client import AsyncClient
from transports.emulation.adapter import emulate_async
from transports.emulation.callbacks import AwaitableCallback, EventedCallback
from transports.policy.events import CallFinished, CallStarted, ConnectionState
from transports.policy.retry import RetryPolicy
from transports.version import VERSION as __version__
from transports.wire.errors import (
    AuthenticationError,
    CallCancelled,
    ClosedError,
    ConnectError,
    ConnectionLost,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    ErrorCode,
    FrameTooLarge,
    ProtocolError,
    RemoteError,
    RetriesExhausted,
    StreamInterrupted,
    UsageError,
    VersionMismatch,
)
from transports.wire.methods import ServerStats

__all__ = [
    "AsyncClient",
    "AuthenticationError",
    "AwaitableCallback",
    "CallCancelled",
    "CallFinished",
    "CallStarted",
    "ClosedError",
    "ConnectError",
    "ConnectTimeout",
    "ConnectionLost",
    "ConnectionState",
    "DualioError",
    "DualioTimeout",
    "ErrorCode",
    "EventedCallback",
    "FrameTooLarge",
    "ProtocolError",
    "RemoteError",
    "RetriesExhausted",
    "RetryPolicy",
    "ServerStats",
    "StreamInterrupted",
    "UsageError",
    "VersionMismatch",
    "__version__",
    "emulate_async",
]
