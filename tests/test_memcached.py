"""The memcached client of examples/memcached, written on dualio's public toolkit alone,
against a real memcached: dualio's contract suite (:mod:`dualio.testing`) on every
transport of both faces, and what memcached's own protocol asks (noreply, CAS, multi-key
reads, its errors). Skipped, with the reason, where memcached is not installed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from dualio import unasync
from dualio.lab.instructions.real_memcached import MEMCACHED
from dualio.testing import AnswersEverything, ContractSuite, Sample, ServerProcess
from dualio.toolkit import DualioError, FrameTooLarge, ProtocolError, Request, causes
from examples.memcached.aio import AsyncMemcache, _value
from examples.memcached.protocol import Item, MemcacheError, MemcacheProtocol
from examples.memcached.sync import Memcache

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "memcached"

def _is_item(answer: Any) -> bool:
    return isinstance(answer, Item) and answer.value == b"one" and answer.cas > 0


class TestMemcached(ContractSuite):
    async_face = AsyncMemcache
    sync_face = Memcache
    server = MEMCACHED
    protocol = MemcacheProtocol
    quiet_request = Request("set", b"set quiet 0 0 1 noreply\r\nx\r\n", bytes, False, 0)
    stray_answer = b"STORED\r\n"
    samples = (
        Sample("set", lambda c: c.set("s1", b"one"), True),
        Sample("get", lambda c: c.get("s1"), b"one"),
        Sample("get missing", lambda c: c.get("no-such-key"), None),
        Sample("gets", lambda c: c.gets("s1"), check=_is_item),
        Sample("add taken", lambda c: c.add("s1", "x"), False),
        Sample("set noreply", lambda c: c.set("s2", "two", noreply=True), None),
        Sample("get after noreply", lambda c: c.get_many(["s1", "s2", "s3"]), {b"s1": b"one", b"s2": b"two"}),
        Sample("counter", lambda c: c.set("n", "41"), True),
        Sample("incr", lambda c: c.incr("n"), 42),
        Sample("delete", lambda c: c.delete("n"), True),
        Sample("delete again", lambda c: c.delete("n"), False),
        Sample("incr missing", lambda c: c.incr("n"), None),
        Sample("touch", lambda c: c.touch("s1", 100), True),
        Sample("version", lambda c: c.version(), check=lambda v: v[:1].isdigit()),
        Sample("ping", lambda c: c.ping(), check=lambda seconds: 0 < seconds < 5),
    )

    @staticmethod
    def unique_request(n: int) -> Request[Any]:
        return Request("get", b"get kit-%d\r\n" % n, _value)

    @staticmethod
    def prepare(client: Any, n: int) -> Any:
        return client.set(f"kit-{n}", f"value-{n}")

    @staticmethod
    def unique(client: Any, n: int) -> Any:
        return client.get(f"kit-{n}")

    @staticmethod
    def answer(n: int) -> Any:
        return f"value-{n}".encode()


# -- what memcached's protocol asks ---------------------------------------------------------

@pytest.fixture(scope="module")
def memcached() -> Iterator[ServerProcess]:
    if shutil.which("memcached") is None:
        pytest.skip("memcached is not installed")
    server = ServerProcess(MEMCACHED)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda c: c.get("has space"), ValueError),
        (lambda c: c.get(""), ValueError),
        (lambda c: c.get("k" * 251), ValueError),
        (lambda c: c.get("tab\there"), ValueError),
        (lambda c: c.get(7), TypeError),
        (lambda c: c.set("k", 7), TypeError),
        (lambda c: c.set("k", b"x" * 1025), ValueError),
        (lambda c: c.set("k", b"x", expire=-1), ValueError),
        (lambda c: c.set("k", b"x", flags=2**32), ValueError),
        (lambda c: c.cas("k", b"x", -1), ValueError),
        (lambda c: c.incr("k", -1), ValueError),
        (lambda c: c.touch("k", True), ValueError),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_sent(
    memcached: ServerProcess, call: Any, error: type[Exception],
) -> None:
    with Memcache(*memcached.address, max_value=1024) as client:
        sent_before = client.get_many(["probe"])
        with pytest.raises(error):
            call(client)
        assert client.get_many(["probe"]) == sent_before  # the connection goes on


def test_an_error_reply_fails_its_call_only(memcached: ServerProcess) -> None:
    with Memcache(*memcached.address) as client:
        client.set("text", "not a number")
        with pytest.raises(MemcacheError, match="CLIENT_ERROR") as failed:
            client.incr("text")
        assert failed.value.code == "CLIENT_ERROR"
        assert client.get("text") == b"not a number"


def test_cas_stores_only_over_the_value_it_read(memcached: ServerProcess) -> None:
    with Memcache(*memcached.address) as client:
        client.set("cas-key", "first")
        item = client.gets("cas-key")
        assert item is not None
        client.set("cas-key", "meanwhile")
        assert client.cas("cas-key", "second", item.cas) is False
        fresh = client.gets("cas-key")
        assert fresh is not None and client.cas("cas-key", "second", fresh.cas) is True
        assert client.get("cas-key") == b"second"


def test_a_value_over_max_value_from_the_server_fails_its_call(memcached: ServerProcess) -> None:
    with Memcache(*memcached.address) as writer, Memcache(*memcached.address, max_value=16) as reader:
        writer.set("large", b"x" * 17)
        writer.set("small", b"x" * 16)
        with pytest.raises(DualioError):
            reader.get("large")
        assert reader.get("small") == b"x" * 16  # on a new connection


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["native", "anyio", "emulated"])
async def test_a_reply_to_a_request_that_expected_none_reaches_no_other_caller(
    transport: str, anyio_backend: str,
) -> None:
    peer = AnswersEverything(b"STORED\r\n")
    try:
        async with AsyncMemcache(*peer.address, transport=transport, retry=None, timeout=5) as client:
            assert await client.set("k", "v", noreply=True) is None
            with pytest.raises(DualioError) as failed:
                await client.get("k")  # STORED arrives for the noreply set: not a get's answer
            assert any(isinstance(e, ProtocolError) for e in causes(failed.value)), failed.value
    finally:
        peer.close()


def test_the_blocking_face_is_generated_from_the_async_one() -> None:
    assert unasync.main(["--config", str(EXAMPLE / "unasync.toml"), "--check"]) == 0


def test_the_example_is_short() -> None:
    written = sum(len((EXAMPLE / name).read_text().splitlines()) for name in ("aio.py", "protocol.py"))
    assert written <= 400, written


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_large_value_after_others_in_one_read_fails_its_own_call_only(
    memcached: ServerProcess,
) -> None:
    async with AsyncMemcache(*memcached.address) as writer:
        await writer.set("before", b"x" * 16)
        await writer.set("too-large", b"x" * 17)
    async with AsyncMemcache(*memcached.address, max_value=16) as reader:
        outcomes: dict[str, object] = {}

        async def get(key: str) -> None:
            try:
                outcomes[key] = await reader.get(key)
            except DualioError as exc:
                outcomes[key] = exc

        for _ in range(20):  # their replies come in one read, most times
            outcomes.clear()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(get, "before")
                tasks.start_soon(get, "too-large")
            assert outcomes["before"] == b"x" * 16, outcomes
            assert isinstance(outcomes["too-large"], FrameTooLarge), outcomes


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_the_kit_counts_the_example_beside_its_floor(
    memcached: ServerProcess, capsys: pytest.CaptureFixture[str],
) -> None:
    from dualio.lab.instructions import real_memcached

    assert real_memcached.main(["--figures", "memcached-sync", "--calls", "100"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("memcached-")}
    sync, raw = (float(rows[name][1].replace(",", "")) for name in ("memcached-sync", "memcached-raw"))
    assert raw < sync < 20 * raw, out
