"""The process's open-files limit: a server of many connections needs one file
descriptor each, and the default soft limit (often 1,024) is far below that."""

from __future__ import annotations

try:
    import resource
except ImportError:  # not on Windows: the open-files limit is then left as it is
    resource = None  # type: ignore[assignment]


def raise_fd_limit() -> int:
    """Raise the soft open-files limit to the hard limit; returns the new soft limit
    (-1 where the OS has no such limit to read)."""
    if resource is None:
        return -1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def fd_limit() -> int:
    """The soft open-files limit (-1 where the OS has no such limit to read)."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0] if resource is not None else -1
