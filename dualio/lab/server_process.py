"""The old path of :mod:`dualio.lab.bench.server_process`, kept while
tests/test_server_workers.py still imports it from here; nothing else does."""

from dualio.lab.bench.server_process import (
    ServerProcess,
    ServerProcessError,
    _clock_seconds,
    _cpu_seconds,
)

__all__ = ["ServerProcess", "ServerProcessError", "_clock_seconds", "_cpu_seconds"]
