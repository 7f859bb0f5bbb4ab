"""`dualio serve` takes its token from a flag, a file or $DUALIO_TOKEN; bad TLS files and
a doubly given token are one clear line and exit 2; `dualio --version` answers; `--loop
uvloop` serves on uvloop, or says in one line that uvloop is missing."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dualio_sync import AuthenticationError, Client, DualioTimeout
from dualio_transports.version import VERSION
from tests.conftest import start_server


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dualio", *args], capture_output=True, text=True,
                          timeout=20, env={**os.environ, **(env or {})})


def test_version() -> None:
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"dualio {VERSION}"


@pytest.mark.parametrize("how", ["file", "environment"])
def test_the_token_from_a_file_or_the_environment(tmp_path: Path, how: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    if how == "file":
        token_file = tmp_path / "token"
        token_file.write_text("s3cret\n")
        server = start_server("--token-file", str(token_file))
    else:
        monkeypatch.setenv("DUALIO_TOKEN", "s3cret")
        server = start_server()
        monkeypatch.delenv("DUALIO_TOKEN")
    try:
        with Client(*server.address, token="s3cret", retry=None) as client:
            assert client.echo(b"in") == b"in"
        with pytest.raises(AuthenticationError):
            Client(*server.address, token="wrong", retry=None)
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (("--tls-cert", "/no/such/cert.pem"), {}, "--tls-cert: no such file: /no/such/cert.pem"),
        (("--tls-cert", __file__), {}, f"cannot load the TLS certificate and key from {__file__}"),
        (("--token-file", "/no/such/token"), {}, "cannot read the token file /no/such/token"),
        (("--token", "a"), {"DUALIO_TOKEN": "b"}, "give the token one way only"),
        (("--loop", "uvloop", "--model", "threaded"), {}, "--loop uvloop needs --model async"),
    ],
    ids=["missing-cert", "not-a-cert", "missing-token-file", "two-tokens", "uvloop-threaded"],
)
def test_bad_server_settings_are_one_line_and_exit_2(args: tuple[str, ...], env: dict[str, str],
                                                     says: str) -> None:
    out = run_cli("serve", "--port", "0", *args, env=env)
    assert out.returncode == 2, out
    assert says in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.mark.skipif(importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed")
def test_serve_on_uvloop() -> None:
    server = start_server("--loop", "uvloop")
    try:
        with Client(*server.address, retry=None, timeout=5) as client:
            assert client.echo(b"on uvloop") == b"on uvloop"
            started = time.monotonic()
            assert client.upper("later", delay=0.1) == "LATER"
            assert time.monotonic() - started >= 0.1
            assert client.sleep(0.05) is None
            assert list(client.words(20)) == list(client.words(20, wait=0.001))
            answers: list[bytes] = []

            def calls(n: int) -> None:
                answers.extend(client.echo(b"%d" % i, delay=0.01 * (i % 3)) for i in range(n))

            threads = [threading.Thread(target=calls, args=(50,)) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(answers) == sorted(b"%d" % i for _ in range(8) for i in range(50))
            with pytest.raises(DualioTimeout):
                client.sleep(10, timeout=0.1)  # the client gives up: CANCEL ends the timer
            assert client.echo(b"after") == b"after"
            deadline = time.monotonic() + 2
            while client.stats().requests_in_flight and time.monotonic() < deadline:
                time.sleep(0.01)
            stats = client.stats()
            assert stats.requests_in_flight == 0 and stats.errors == 1  # the CANCELLED sleep
    finally:
        assert server.stop() == 0
    assert not [line for line in server.log if "Traceback" in line or "closing" in line], server.log


def test_uvloop_missing_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "uvloop").mkdir()
    (tmp_path / "uvloop" / "__init__.py").write_text("raise ImportError('no uvloop here')\n")
    out = run_cli("serve", "--port", "0", "--loop", "uvloop", env={"PYTHONPATH": str(tmp_path)})
    assert out.returncode == 2, out
    assert out.stderr.strip() == ("dualio serve: --loop uvloop needs the uvloop package: "
                                  "pip install uvloop (or pip install 'dualio[uvloop]')"), out.stderr
