"""The one error hierarchy both faces raise.

Every failure a dualio call can meet is a :class:`DualioError`, so
``except DualioError`` catches them all; the subclasses say which kind.
Where a builtin exception means the same thing, the class also derives from it
(``except TimeoutError`` works on a dualio timeout).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any, Self


class ErrorCode(IntEnum):
    """Codes carried by ERROR frames (see docs/protocol.md)."""

    BAD_FRAME = 1
    UNKNOWN_METHOD = 2
    BAD_ARGUMENTS = 3
    UNAUTHORIZED = 4
    UNSUPPORTED_VERSION = 5
    FRAME_TOO_LARGE = 6
    CANCELLED = 7
    NOT_READY = 8
    INTERNAL = 9
    SHUTTING_DOWN = 10
    BUSY = 11


RETRYABLE_CODES = frozenset({ErrorCode.NOT_READY, ErrorCode.SHUTTING_DOWN, ErrorCode.BUSY})


class DualioError(Exception):
    """Base class of every error dualio raises.

    ``retryable`` says whether trying again later may succeed (the server was
    unreachable, busy or restarting), not whether it is safe: the client retries
    by itself only calls that are safe to send twice (see RetryPolicy).
    """

    retryable: bool = False
    method: str | None = None
    """The service method of the call that raised it (None: not raised by a call)."""
    request_id: int | None = None
    """The wire id of that call's last request; None when it was never sent."""

    def for_call(self, method: str, request_id: int | None) -> Self:
        """This error as one call raises it: a copy that names the call (one error may
        end many calls, so it is never changed itself), with the original's cause. The
        traceback notes it too."""
        cls = type(self)
        error = cls.__new__(cls)
        error.args = self.args
        error.__dict__.update(self.__dict__)
        error.__cause__ = self.__cause__
        error.__context__ = self.__context__
        error.__suppress_context__ = True  # raised while its original is handled: not shown again
        error.__traceback__ = self.__traceback__
        error.method, error.request_id = method, request_id
        sent = "never sent" if request_id is None else f"request id {request_id}"
        error.__notes__ = [n for n in getattr(self, "__notes__", ()) if not n.startswith("call: ")]
        error.add_note(f"call: {method}, {sent}")
        return error


class ConnectError(DualioError, ConnectionError):
    """The connection or its handshake could not be established."""

    retryable = True


class AuthenticationError(ConnectError):
    """The server refused the handshake: missing or wrong token."""

    retryable = False


class VersionMismatch(ConnectError):
    """The server does not speak this client's protocol version."""

    retryable = False


class DualioTimeout(DualioError, TimeoutError):
    """A connect, a call or a stream item took longer than its timeout."""


class ConnectTimeout(ConnectError, DualioTimeout):
    """Connecting or the handshake took longer than ``connect_timeout``."""


class ProtocolError(DualioError):
    """Bytes that break the wire protocol. From the peer, the connection is closed; an
    answer that fails its own check (a blob that does not match its seed, text that is
    not UTF-8) fails only that call."""


class FrameTooLarge(ProtocolError):
    """A frame's length prefix is over the agreed maximum frame size.

    A decoder that finds it after other whole messages of the same bytes gives those as
    ``before``: they reach their calls first, and the call the large one answers is told."""

    before: Sequence[tuple[Any, int, bytes]] = ()


class ClosedError(DualioError):
    """The connection is closed (by this side, by the peer, or because it broke)."""


class ConnectionLost(ClosedError):
    """The connection broke while the call was in flight: its request may have
    reached the server (and may have been served). Retried by itself only for
    methods that are safe to run twice."""

    retryable = True


class OutcomeUnknown(ConnectionLost):
    """The connection broke after a call's request was sent, before its answer came,
    and the call is not one that is safe to send twice (an INCR, a transaction): it
    may or may not have run on the server. Never sent again by itself."""

    retryable = False


class StreamInterrupted(ConnectionLost):
    """The connection broke in the middle of a stream; streams are not resumed.
    ``delivered`` items had been handed to the caller."""

    def __init__(self, message: str, delivered: int) -> None:
        super().__init__(message)
        self.delivered = delivered


class RetriesExhausted(ConnectError):
    """Reconnecting, or retrying a call, failed as many times (or for as long) as the
    retry policy allows. ``attempts`` tries were made; ``errors`` says how each failed."""

    retryable = False

    def __init__(self, message: str, attempts: int, errors: list[DualioError]) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.errors = list(errors)


class CallCancelled(DualioError):
    """The call was abandoned by its caller before its answer arrived."""


class RemoteError(DualioError):
    """The server answered a call with an error, whatever the protocol: ``message`` as it
    said it, ``code`` the protocol's own name or number for it (None: it has none), and
    ``retryable``: the server did not serve the request, and may later."""

    code: int | str | None

    def __init__(self, message: str, *, code: int | str | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.retryable = retryable


class ServiceError(RemoteError):
    """The dualio server answered a call with an ERROR frame: its :class:`ErrorCode` and text."""

    code: int

    def __init__(self, code: int, message: str) -> None:
        DualioError.__init__(self, f"{_code_name(code)}: {message}")
        self.code = code
        self.message = message
        self.retryable = code in RETRYABLE_CODES


class UsageError(DualioError, RuntimeError):
    """The API was used in a way it does not support (wrong thread, wrong loop, ...)."""


def _code_name(code: int) -> str:
    try:
        return ErrorCode(code).name
    except ValueError:
        return f"code {code}"


def short(value: float) -> str:
    """``repr(value)``, unless it is an int too long to read."""
    text = repr(value)
    return text if len(text) <= 24 else f"an int of {len(text)} digits"


def causes(error: BaseException | None) -> list[BaseException]:
    """``error`` and what caused it, outermost first: each link's ``__cause__``, and for
    :class:`RetriesExhausted` without one, its last try's error. The one walk of a chain
    of causes (what broke a socket, what limit a failure hit); a chain that loops ends
    where it would repeat."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        chain.append(error)
        seen.add(id(error))
        cause = error.__cause__
        if cause is None and isinstance(error, RetriesExhausted) and error.errors:
            cause = error.errors[-1]
        error = cause
    return chain
