"""`dualio serve` takes its token from a flag, a file or $DUALIO_TOKEN; bad TLS files and
a doubly given token are one clear line and exit 2; `dualio --version` answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dualio_sync import AuthenticationError, Client
from tests.conftest import start_server
from transports.version import VERSION


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
    ],
    ids=["missing-cert", "not-a-cert", "missing-token-file", "two-tokens"],
)
def test_bad_server_settings_are_one_line_and_exit_2(args: tuple[str, ...], env: dict[str, str],
                                                     says: str) -> None:
    out = run_cli("serve", "--port", "0", *args, env=env)
    assert out.returncode == 2, out
    assert says in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
