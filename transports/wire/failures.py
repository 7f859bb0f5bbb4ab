"""The errors a call or a connection ends with, each written once for every transport:
the texts a user reads, and how connect and handshake failures map to
:class:`ConnectError`. What a deadline means is here too (:func:`deadline_passed`)."""

from __future__ import annotations

from dualio_transports.wire import timing
from dualio_transports.wire.errors import (
    CallCancelled,
    ClosedError,
    ConnectError,
    ConnectionLost,
    ConnectTimeout,
    DualioTimeout,
    causes,
)


def call_timeout() -> DualioTimeout:
    return DualioTimeout("the call timed out")


def item_timeout(timeout: float | None) -> DualioTimeout:
    return DualioTimeout(f"no stream item within {timeout}s")


def deadline_error(stream_item_timeout: float | None) -> DualioTimeout:
    """What a deadline a timer kept means: a call's timeout, or (a stream item's timeout
    given) that stream item's."""
    return call_timeout() if stream_item_timeout is None else item_timeout(stream_item_timeout)


def deadline_passed(request_left: bool) -> DualioTimeout:
    """What a call's deadline means: the call's timeout once its request left, else the
    write's (the request was taken back, or never began to leave)."""
    return call_timeout() if request_left else write_timeout()


def write_timeout() -> DualioTimeout:
    """The request did not leave by the call's deadline (it waited for the socket, for
    another writer, or for a worker): it was never sent."""
    return DualioTimeout("timed out writing the request")


def torn_write(why: str = "timed out") -> ConnectionLost:
    """The failure of a connection left with half a frame on the wire (``why``: what ended
    the write). The connection cannot carry another frame, but the client can: the next
    call connects anew, as after any lost connection."""
    return ConnectionLost(f"{why} in the middle of writing a frame: the connection cannot be used again")


def write_stalled() -> ConnectionLost:
    """The failure of a connection whose write made no progress for ``WRITE_STALL_LIMIT``:
    the peer is not reading."""
    limit = timing.WRITE_STALL_LIMIT
    return ConnectionLost(f"a write made no progress for {limit:g}s: the server is not reading")


def peer_closed() -> ConnectionLost:
    return ConnectionLost("the server closed the connection")


def broken(exc: BaseException) -> ConnectionLost:
    """The failure of a connection whose socket failed with ``exc``, which it keeps as
    its cause, set here once: the failure is stored and may end many calls, so it is
    raised as it is, never ``from`` anything."""
    lost = ConnectionLost(f"the connection broke: {_socket_error_text(exc)}")
    lost.__cause__ = exc
    return lost


def _socket_error_text(exc: BaseException) -> str:
    """What the socket said, where ``exc`` wraps it (anyio's BrokenResourceError says nothing)."""
    found = next((link for link in causes(exc) if isinstance(link, OSError)), exc)
    return str(found) or type(exc).__name__


def given_up_while_held(call: str) -> ConnectionLost:
    """The failure of a connection whose protocol cannot give up ``call`` and keep it (the
    server holds the call, and its answer could come at any time)."""
    return ConnectionLost(
        f"{call} was given up while the server held it: the connection cannot be used again"
    )


def closed_by_user() -> ClosedError:
    return ClosedError("the connection was closed")


def cancelled() -> CallCancelled:
    return CallCancelled("the call was cancelled")


def cancelled_before_sent() -> CallCancelled:
    return CallCancelled("the call was cancelled before it was sent")


def cancelled_while_sent() -> CallCancelled:
    return CallCancelled("the call was cancelled while its request was written")


def connect_failed(where: str, exc: BaseException) -> ConnectError:
    """A failure to open the socket (TCP, TLS or Unix) to ``where`` (``host:port``, or
    ``unix:path``) as the one error every transport raises."""
    if isinstance(exc, ConnectError):
        return exc
    if isinstance(exc, TimeoutError):
        return ConnectTimeout(f"connecting to {where} timed out")
    return ConnectError(f"cannot connect to {where}: {exc}")


def handshake_failed(exc: BaseException) -> ConnectError:
    """A failed HELLO/WELCOME exchange as the one error every transport raises."""
    if isinstance(exc, ConnectError):
        return exc
    if isinstance(exc, TimeoutError):
        return ConnectTimeout("the server did not answer the handshake in time")
    if isinstance(exc, ClosedError):
        return ConnectError(f"the server closed the connection during the handshake: {exc}")
    return ConnectError(f"handshake failed: {exc}")
