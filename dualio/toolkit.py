"""Your protocol on dualio's async face: everything a protocol's author needs, in one module.

``dualio_sync.toolkit`` is the same for the blocking face, which ``python -m dualio.unasync``
generates from the async one. docs/extending.md walks through a whole client.

- the wire: :class:`WireProtocol` (one object per connection, no I/O), its
  :class:`Decoder`, :class:`InOrderProtocol` (the usual defaults), :class:`Matching`,
  :class:`CallKind`, and :class:`Request` / :class:`StreamRequest` (what a call sends and
  how its answer is read);
- the face: :class:`AsyncFace` (subclass it: its constructor takes
  :class:`ConnectOptions`; :meth:`~AsyncFace.request`, :meth:`~AsyncFace.stream`,
  :meth:`~AsyncFace.ping`, :meth:`~AsyncFace.dedicated` are what your methods call);
- ``Lock``, ``sleep``, ``together`` (calls made at once, their results in order) and
  ``Wakeup`` (a pause another caller can cut short) on the face's own terms (anyio's
  here; threading's and time's on the blocking face);
- the errors every face raises, the settings' types, the retry policy's series, checks
  of timeouts, URL helpers (:class:`FromUrl`), and telemetry's :class:`Conventions`.

Every other module of dualio (``dualio_transports`` and the faces' own) is private.
"""

from anyio import Lock, sleep

from dualio.face_calls import AsyncDedicated
from dualio.face_connection import AsyncFace, AsyncOnly, TransportName
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
from dualio_transports.policy.together_async import together_async as together
from dualio_transports.policy.url import FromUrl, query_items, seconds, split_url
from dualio_transports.policy.wakeup_async import WakeupAsync as Wakeup
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
    "AsyncDedicated",
    "AsyncFace",
    "AsyncOnly",
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
    "DualioError",
    "DualioTimeout",
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
