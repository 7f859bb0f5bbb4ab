"""dualio's async face: ``from dualio import AsyncClient``."""

from dualio.client import AsyncClient
from dualio_transports.dualio_protocol.methods import ServerStats
from dualio_transports.emulation.adapter import emulate_async
from dualio_transports.emulation.callbacks import AwaitableCallback, EventedCallback
from dualio_transports.policy.events import CallFinished, CallStarted, ConnectionState
from dualio_transports.policy.retry import RetryPolicy
from dualio_transports.policy.telemetry import Instrumentation, instrument
from dualio_transports.version import VERSION as __version__
from dualio_transports.wire.errors import (
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
    OutcomeUnknown,
    ProtocolError,
    RemoteError,
    RetriesExhausted,
    ServiceError,
    StreamInterrupted,
    UsageError,
    VersionMismatch,
)

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
    "Instrumentation",
    "OutcomeUnknown",
    "ProtocolError",
    "RemoteError",
    "RetriesExhausted",
    "RetryPolicy",
    "ServerStats",
    "ServiceError",
    "StreamInterrupted",
    "UsageError",
    "VersionMismatch",
    "__version__",
    "emulate_async",
    "instrument",
]
