"""dualio's blocking face: ``from dualio_sync import Client``.

GENERATED from dualio/__init__.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from dualio_sync.client import Client
from dualio_transports.dualio_protocol.methods import ServerStats
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
    "instrument",
]
