"""What a lab run was measured on and with: recorded beside its numbers in results.json."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dualio_transports.version import VERSION

# Bumped whenever results.json changes shape; `dualio bench compare` reads only its own.
SCHEMA_VERSION = 2
PACKAGES = ("anyio", "trio", "uvloop", "gevent", "psutil", "redis", "hiredis", "valkey-glide",
            "valkey-glide-sync", "coredis")


def now() -> str:
    """The local time with its UTC offset, ISO-8601, to the second."""
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def _git(*args: str) -> str | None:
    try:
        run = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def git_checkout() -> tuple[str | None, bool | None]:
    """(commit, changed since it) of the git checkout dualio runs from; (None, None) when
    dualio is not running from one (an installed copy inside some other repository
    does not count)."""
    top = _git("rev-parse", "--show-toplevel")
    here = Path(__file__).resolve()
    if not top or Path(top, "dualio", "lab", "common", here.name).resolve() != here:
        return None, None
    commit = _git("rev-parse", "HEAD")
    changes = _git("status", "--porcelain", "--untracked-files=no")
    return commit or None, None if changes is None else bool(changes)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def machine() -> dict[str, Any]:
    """The facts that make two runs comparable: same CPU model and count, or a warning."""
    return {"cpu_model": cpu_model(), "logical_cpus": os.cpu_count(), "arch": platform.machine()}


def collect(argv: Sequence[str], repeat: int, quick: bool) -> dict[str, Any]:
    """The run's context, taken when it starts; ``partial`` and ``finished`` are set at the end."""
    uname = platform.uname()
    commit, changed = git_checkout()
    return {
        "dualio_version": VERSION,
        "git_commit": commit,
        "git_changed": changed,
        "started": now(),
        "finished": None,
        "duration_s": None,
        "command": shlex.join(["dualio", *argv]),
        "repeat": repeat,
        "quick": quick,
        "partial": False,
        "python": {"version": platform.python_version(),
                   "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "os": {"platform": platform.platform(), "system": uname.system, "kernel": uname.release},
        "machine": machine(),
        "packages": package_versions(),
    }
