"""The blocking ``Client`` under gevent's monkey-patching: shared by 500 greenlets, one per
greenlet, streams, timeouts, and calls interrupted by ``gevent.Timeout``.

The checks run in a process of their own (tests/gevent_checks.py), since
``monkey.patch_all()`` must come before anything else is imported and would change
this one for every later test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ServerProcess

pytest.importorskip("gevent")

CHECKS = Path(__file__).resolve().parent / "gevent_checks.py"
NAMES = ("shared client", "client per greenlet", "streams", "timeout", "gevent.Timeout")


def test_the_blocking_client_under_gevent(server: ServerProcess) -> None:
    result = subprocess.run(
        [sys.executable, str(CHECKS), server.host, str(server.port)],
        capture_output=True, text=True, timeout=60, cwd=CHECKS.parent.parent,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    report = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, report
    passed = [line.split(":", 1)[0].removeprefix("ok ") for line in result.stdout.splitlines()
              if line.startswith("ok ")]
    assert passed == list(NAMES), report
    assert "Traceback" not in result.stderr, report


def test_the_checks_refuse_a_bad_command_line() -> None:
    result = subprocess.run([sys.executable, str(CHECKS), "127.0.0.1"], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2
    assert "usage:" in result.stderr and "Traceback" not in result.stderr
