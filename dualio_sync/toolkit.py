"""Your protocol on dualio's blocking face: everything a protocol's author needs, in one module
(docs/extending.md).

GENERATED from dualio/toolkit.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from threading import Lock
from time import sleep

from dualio_sync.face_calls import Dedicated
from dualio_sync.face_connection import Face, TransportName
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.policy.events import (
    CallFinished,
    CallStarted,
    ConnectionState,
    RequestCallback,
    ResponseCallback,
    StateCallback,
)
from dualio_transports.policy.held_connections import HELD_CONNECTIONS
from dualio_transports.policy.retry import DEFAULT_RETRY, RetryPolicy, Series, may_retry
from dualio_transports.policy.telemetry import Conventions
from dualio_transports.policy.timeouts import UNSET, Unset, check_timeout, pick_timeout
from dualio_transports.policy.together import together
from dualio_transports.policy.url import FromUrl, query_items, seconds, split_url
from dualio_transports.policy.wakeup import Wakeup
from dualio_transports.wire.errors import (
    AuthenticationError,
    CallCancelled,
    ClosedError,
    ConnectError,
    ConnectionLost,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    FrameTooLarge,
    OutcomeUnknown,
    ProtocolError,
    RemoteError,
    RetriesExhausted,
    StreamInterrupted,
    UsageError,
    causes,
)
from dualio_transports.wire.protocol import (
    HANDSHAKE_DONE,
    HANDSHAKE_KEY,
    IN_ORDER,
    CallKind,
    Decoder,
    HandshakeDone,
    InOrderProtocol,
    Matching,
    Message,
    WireProtocol,
)
from dualio_transports.wire.request import PING, Request, StreamRequest

__all__ = [
    "DEFAULT_RETRY",
    "HANDSHAKE_DONE",
    "HANDSHAKE_KEY",
    "HELD_CONNECTIONS",
    "IN_ORDER",
    "PING",
    "UNSET",
    "AuthenticationError",
    "CallCancelled",
    "CallFinished",
    "CallKind",
    "CallStarted",
    "ClosedError",
    "ConnectError",
    "ConnectOptions",
    "ConnectTimeout",
    "ConnectionLost",
    "ConnectionState",
    "Conventions",
    "Decoder",
    "Dedicated",
    "DualioError",
    "DualioTimeout",
    "Face",
    "FrameTooLarge",
    "FromUrl",
    "HandshakeDone",
    "InOrderProtocol",
    "Lock",
    "Matching",
    "Message",
    "OutcomeUnknown",
    "ProtocolError",
    "RemoteError",
    "Request",
    "RequestCallback",
    "ResponseCallback",
    "RetriesExhausted",
    "RetryPolicy",
    "Series",
    "StateCallback",
    "StreamInterrupted",
    "StreamRequest",
    "TransportName",
    "Unset",
    "UsageError",
    "Wakeup",
    "WireProtocol",
    "causes",
    "check_timeout",
    "may_retry",
    "pick_timeout",
    "query_items",
    "seconds",
    "sleep",
    "split_url",
    "together",
]
