"""dualio's blocking face: ``from dualio_sync import Client``."""

from dualio_sync.client import Client
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
    "AuthenticationError",
    "CallCancelled",
    "CallFinished",
    "CallStarted",
    "Client",
    "ClosedError",
    "ConnectError",
    "ConnectTimeout",
    "ConnectionLost",
    "ConnectionState",
    "DualioError",
    "DualioTimeout",
    "ErrorCode",
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
]
