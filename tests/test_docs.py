"""Every ```python block in README.md and docs/*.md runs as written.

The snippets talk to ``127.0.0.1:7878``, so one real server (``python -m dualio
serve --port 7878``) is started for this module; those of docs/redis.md talk to a
redis-server on ``127.0.0.1:6379``, started for them (skipped, with the reason, when
redis-server is not installed). Each snippet runs in a fresh
interpreter of its own, with a time limit: top-level ``await`` / ``async with`` /
``async for`` are compiled with ``ast.PyCF_ALLOW_TOP_LEVEL_AWAIT`` and the
resulting coroutine runs under ``asyncio.run`` (under ``trio.run`` when the
snippet imports trio and not asyncio or anyio). docs/redis.md's run as scripts, as a user
would paste them into a file: without top-level ``await``.

A block that is not meant to run is either not Python (fence it as ```text) or
carries ``<!-- not-run: reason -->`` on the line before its fence.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ServerProcess, start_server
from tests.redis_server import NOT_INSTALLED, REDIS_SERVER, RedisServer, start_redis

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HOST, PORT = "127.0.0.1", 7878
REDIS_PORT = 6379
REDIS_DOCS = {"redis.md"}  # the pages whose snippets talk to Redis
MEMCACHED_DOCS = {"extending.md"}  # the pages whose snippets talk to memcached, on 127.0.0.1:11211
MEMCACHED_PORT = 11211
SCRIPTS = {"redis.md", "extending.md"}  # these pages' snippets run as ``python file.py`` would
SNIPPET_TIMEOUT = 20.0
PYTHON_FENCES = {"python", "py", "python3"}
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(?P<reason>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<ticks>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")

# Runs in the child interpreter: argv = [filename, backend], the source on stdin.
RUNNER = """
import ast, asyncio, inspect, sys
filename, backend = sys.argv[1], sys.argv[2]
flags = 0 if backend == "script" else ast.PyCF_ALLOW_TOP_LEVEL_AWAIT  # a script: no top-level await
code = compile(sys.stdin.read(), filename, "exec", flags=flags, dont_inherit=True)
outcome = eval(code, {"__name__": "__main__", "__builtins__": __builtins__})
if code.co_flags & inspect.CO_COROUTINE:
    if backend == "trio":
        import trio

        async def main():
            await outcome

        trio.run(main)
    else:
        asyncio.run(outcome)
"""


@dataclass(frozen=True)
class Snippet:
    path: Path
    line: int  # 1-based line of the opening fence
    source: str
    not_run: str | None  # the reason, when marked <!-- not-run: reason -->

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"

    @property
    def backend(self) -> str:
        if self.path.name in SCRIPTS:
            return "script"
        imports = set(re.findall(r"^\s*(?:import|from)\s+(\w+)", self.source, re.MULTILINE))
        return "trio" if "trio" in imports and not imports & {"asyncio", "anyio"} else "asyncio"


def fenced_blocks(path: Path) -> Iterator[Snippet]:
    """Every ```python block of one Markdown file (fences of other languages are skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        ticks, indent = opening["ticks"], len(opening["indent"])
        end = i + 1
        while end < len(lines) and not re.match(rf"^ {{0,3}}{re.escape(ticks[0])}{{{len(ticks)},}}\s*$",
                                                 lines[end]):
            end += 1
        if end == len(lines):
            raise ValueError(f"{path.name}:{i + 1}: fence never closed")
        if opening["info"].lower() in PYTHON_FENCES:
            before = next((text for text in reversed(lines[:i]) if text.strip()), "")
            marker = NOT_RUN.match(before)
            body = [re.sub(rf"^ {{0,{indent}}}", "", text) for text in lines[i + 1:end]]
            yield Snippet(path, i + 1, "\n".join(body) + "\n", marker["reason"] if marker else None)
        i = end + 1


SNIPPETS = [snippet for path in DOCS for snippet in fenced_blocks(path)]


def test_the_docs_have_snippets() -> None:
    names = {snippet.path.name for snippet in SNIPPETS}
    assert {"README.md", "api.md"} <= names, names


def test_fences_and_markers_are_read_as_intended(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\nls\n```\n\n```python\nx = 1\n```\n<!-- not-run: needs a GPU -->\n\n"
        "~~~python\n```\n~~~\n- item\n\n   ```py\n   if x:\n       y = 2\n   ```\n```text\nf(*, a)\n```\n",
        encoding="utf-8",
    )
    found = [(s.line, s.source, s.not_run) for s in fenced_blocks(page)]
    assert found == [(5, "x = 1\n", None), (10, "```\n", "needs a GPU"), (15, "if x:\n    y = 2\n", None)]


def test_every_exemption_gives_a_reason() -> None:
    assert [s.name for s in SNIPPETS if s.not_run is not None and not s.not_run] == []


@pytest.fixture(scope="module")
def docs_server() -> Iterator[ServerProcess]:
    """The server the snippets expect, on 127.0.0.1:7878."""
    try:
        server = start_server("--port", str(PORT), host=HOST)
    except RuntimeError as exc:
        failure = str(exc)
    else:
        failure = ""
    if failure:
        pytest.fail(f"cannot start the docs server on {HOST}:{PORT}, the address the snippets use; "
                    f"is something else listening there?\n{failure}", pytrace=False)
    yield server
    assert server.stop() == 0, "\n".join(server.log)


@pytest.fixture(scope="module")
def docs_redis() -> Iterator[RedisServer]:
    """The redis-server docs/redis.md's snippets expect, on 127.0.0.1:6379."""
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    try:
        server = start_redis(port=REDIS_PORT)
    except RuntimeError as exc:
        failure = str(exc)
    else:
        failure = ""
    if failure:
        pytest.fail(f"cannot start the docs' redis-server on {HOST}:{REDIS_PORT}, the address the "
                    f"snippets use; is something else listening there?\n{failure}", pytrace=False)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def docs_memcached() -> Iterator[None]:
    """The memcached docs/extending.md's snippets expect, on 127.0.0.1:11211."""
    if shutil.which("memcached") is None:
        pytest.skip("memcached is not installed")
    process = subprocess.Popen(
        ["memcached", "-u", "nobody", "-l", HOST, "-p", str(MEMCACHED_PORT), "-U", "0", "-m", "64"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            if process.poll() is not None:
                pytest.fail(f"memcached exited ({process.returncode}): is something else listening on "
                            f"{HOST}:{MEMCACHED_PORT}, the address the snippets use?", pytrace=False)
            try:
                socket.create_connection((HOST, MEMCACHED_PORT), timeout=1).close()
                break
            except OSError:
                time.sleep(0.01)
        yield
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.timeout(SNIPPET_TIMEOUT + 15)
@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.name)
def test_snippet_runs(snippet: Snippet, docs_server: ServerProcess, request: pytest.FixtureRequest) -> None:
    if snippet.not_run is not None:
        pytest.skip(f"not-run: {snippet.not_run}")
    if snippet.path.name in REDIS_DOCS:
        request.getfixturevalue("docs_redis")
    if snippet.path.name in MEMCACHED_DOCS:
        request.getfixturevalue("docs_memcached")
    # Leading blank lines make the snippet's line numbers the Markdown file's, so a
    # traceback points at the line in the doc.
    source = "\n" * snippet.line + snippet.source
    filename = snippet.path.relative_to(ROOT).as_posix()
    try:
        result = subprocess.run(
            [sys.executable, "-c", RUNNER, filename, snippet.backend],
            input=source, capture_output=True, text=True, timeout=SNIPPET_TIMEOUT, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{snippet.name} did not finish within {SNIPPET_TIMEOUT:.0f} s\n"
                    f"stdout:\n{exc.stdout!r}\nstderr:\n{exc.stderr!r}", pytrace=False)
    report = f"{snippet.name} ({snippet.backend})\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, f"exited {result.returncode}: {report}"
    # An exception on another thread, in a task nobody awaited or in a finaliser does
    # not change the exit status; it is still a failing snippet.
    for sign in ("Traceback (most recent call last)", "Exception ignored", "exception was never retrieved"):
        assert sign not in result.stderr, report
