"""The distribution as a user gets it: the sdist built from the tracked files, the wheel
built from that sdist, both passing ``twine check``, and the wheel installed into a
fresh virtualenv outside the repository (no extras: ``pip install dualio``) and used
from there: both faces against ``dualio serve``, ``dualio --version``, ``dualio bench
--help``. The wheel's import packages are this distribution's own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dualio_transports.version import VERSION

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"dualio": "dualio", "dualio_sync": "dualio_sync", "transports": "dualio_transports"}
"""Each folder of the repository that the wheel holds, and its import name there."""
LEFT_OUT = ("dualio/devtools/",)
"""Tracked modules the wheel leaves out on purpose: the repository's own tools."""

CLIENTS = """
import asyncio, sys
import dualio, dualio_sync
host, port = sys.argv[1], int(sys.argv[2])
with dualio_sync.Client(host, port) as client:
    assert client.echo(b"sync") == b"sync"
    assert client.upper("wheel") == "WHEEL"
async def main():
    async with dualio.AsyncClient(host, port) as client:
        assert await client.echo(b"async") == b"async"
        assert len([word async for word in client.words(3)]) == 3
asyncio.run(main())
try:
    import transports
except ModuleNotFoundError:
    print("both faces answered; no 'transports' module")
"""


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, f"{args} exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    return out


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(sdist, wheel), built from a copy of the tracked files (the repository stays as it was)."""
    work = tmp_path_factory.mktemp("dist")
    source = work / "source"
    tracked = _run("git", "ls-files", "-z", cwd=ROOT).stdout.split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", work / "out", source, cwd=work)
    (sdist,) = (work / "out").glob("*.tar.gz")
    (wheel,) = (work / "out").glob("*.whl")
    yield sdist, wheel


def test_the_metadata_passes_twine_check(dists: tuple[Path, Path]) -> None:
    out = _run(sys.executable, "-m", "twine", "check", "--strict", *dists, cwd=dists[0].parent)
    assert out.stdout.count("PASSED") == 2


def test_the_wheel_holds_every_module_under_its_own_names(dists: tuple[Path, Path]) -> None:
    _, wheel = dists
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {
        "dualio", "dualio_sync", "dualio_transports", f"dualio-{VERSION}.dist-info",
    }
    tracked = _run("git", "ls-files", *FOLDERS, cwd=ROOT).stdout.split()
    expected = {
        FOLDERS[path.split("/")[0]] + path[path.index("/"):]
        for path in tracked
        if path.endswith((".py", "py.typed")) and not path.startswith(LEFT_OUT)
    }
    assert expected - set(names) == set()  # a module missing: the package list in pyproject.toml
    assert {name for name in names if name.endswith(".py")} <= expected
    assert not any(name.startswith(LEFT_OUT) for name in names)


def test_the_sdist_holds_the_tracked_sources(dists: tuple[Path, Path]) -> None:
    sdist, _ = dists
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    listed = ("git", "ls-files", *FOLDERS, "pyproject.toml", "README.md", "LICENSE")
    tracked = _run(*listed, cwd=ROOT).stdout.split()
    assert {path for path in tracked if path.endswith(".py") and not path.startswith(LEFT_OUT)} <= names
    assert {"pyproject.toml", "README.md", "LICENSE"} <= names


def test_the_wheel_works_in_a_fresh_virtualenv_outside_the_repository(
    dists: tuple[Path, Path], tmp_path: Path
) -> None:
    _, wheel = dists
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    bin_ = venv / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    _run(bin_ / "pip", "install", "--quiet", "--disable-pip-version-check", wheel, cwd=tmp_path, env=env)

    assert _run(bin_ / "dualio", "--version", cwd=tmp_path, env=env).stdout.strip() == f"dualio {VERSION}"
    assert "--scenario" in _run(bin_ / "dualio", "bench", "--help", cwd=tmp_path, env=env).stdout
    where = _run(bin_ / "python", "-c", "import dualio_transports; print(dualio_transports.__file__)",
                 cwd=tmp_path, env=env).stdout
    assert where.startswith(str(venv))

    server = subprocess.Popen(
        [bin_ / "dualio", "serve", "--port", "0"], cwd=tmp_path, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**env, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("listening on "), line + (server.stderr.read() if server.stderr else "")
        host, port = line.split()[-1].rsplit(":", 1)
        clients = tmp_path / "clients.py"
        clients.write_text(CLIENTS)
        out = _run(bin_ / "python", clients, host, port, cwd=tmp_path, env=env, timeout=60)
        assert out.stdout.strip() == "both faces answered; no 'transports' module"
    finally:
        server.terminate()
        server.communicate(timeout=10)  # waits, and closes its pipes
