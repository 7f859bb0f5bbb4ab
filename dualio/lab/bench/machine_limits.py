"""Turn the machine's limits into one-line explanations with the limit's value."""

from __future__ import annotations

import errno
import resource
from pathlib import Path

from dualio_transports.wire.errors import causes


class ThreadsNotStarted(RuntimeError):
    """Not every thread of a round started within its set-up time: the machine's limit."""


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return "?"


def _root_cause(exc: BaseException) -> BaseException:
    return causes(exc)[-1]


def is_limit(exc: BaseException) -> bool:
    """Did a limit of the machine or of the server stop this call (not a lost answer)?"""
    from dualio import ConnectTimeout

    cause = _root_cause(exc)
    code = getattr(cause, "errno", None)
    return (
        code in (errno.EMFILE, errno.ENFILE, errno.EADDRNOTAVAIL, errno.ECONNREFUSED)
        or isinstance(cause, ThreadsNotStarted)
        or (isinstance(cause, RuntimeError) and "thread" in str(cause))
        or any(isinstance(link, ConnectTimeout) for link in causes(exc))  # retried or not
        or _reset_in_handshake(exc)
    )


def _reset_in_handshake(exc: BaseException) -> bool:
    """A connection reset before its handshake was done: what a server whose accept
    queue overflowed does to a connection the kernel had half taken (no call was made)."""
    from dualio import ConnectError

    links = causes(exc)
    return getattr(links[-1], "errno", None) == errno.ECONNRESET and any(
        isinstance(link, ConnectError) for link in links)


def explain(exc: BaseException) -> str:
    """``Type: message`` plus which limit was hit and how to raise it, when one was."""
    text = f"{type(exc).__name__}: {exc}"
    cause = _root_cause(exc)
    code = getattr(cause, "errno", None)
    if code in (errno.EMFILE, errno.ENFILE):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        return (f"open-files limit reached (soft {soft}, hard {hard}; raise with `ulimit -n`, "
                f"system-wide /proc/sys/fs/file-max = {_read('/proc/sys/fs/file-max')}): {text}")
    if code == errno.EADDRNOTAVAIL:
        ports = _read("/proc/sys/net/ipv4/ip_local_port_range").replace("\t", "-")
        return (f"ephemeral ports exhausted (range {ports}; widen "
                f"/proc/sys/net/ipv4/ip_local_port_range or use more client addresses): {text}")
    if isinstance(cause, RuntimeError) and "thread" in str(cause):
        soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
        return (f"thread limit reached (ulimit -u {soft}, threads-max "
                f"{_read('/proc/sys/kernel/threads-max')}): {text}")
    if code == errno.ECONNREFUSED:
        return f"connection refused (listen backlog full or server gone): {text}"
    from dualio import ConnectTimeout

    if isinstance(exc, ConnectTimeout):
        return f"the server did not accept in time (its accept rate / backlog): {text}"
    if _reset_in_handshake(exc):
        return f"the server reset the connection before its handshake was done (its backlog): {text}"
    return text
