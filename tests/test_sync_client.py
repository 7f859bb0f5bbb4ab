"""The blocking face against the real server over real TCP."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from dualio_sync import Client
from dualio_transports.dualio_protocol.blob import blob_bytes
from dualio_transports.dualio_protocol.methods import word_at
from tests.conftest import ServerProcess, start_server


@pytest.fixture
def client(any_server: ServerProcess) -> Iterator[Client]:
    with Client(*any_server.address, timeout=10) as c:
        yield c


def test_delay_is_spent_on_the_server(client: Client) -> None:
    started = time.perf_counter()
    assert client.upper("slow", delay=0.2) == "SLOW"
    assert 0.19 < time.perf_counter() - started < 2


def test_stream_paces_items(client: Client) -> None:
    started = time.perf_counter()
    assert len(list(client.words(5, wait=0.05))) == 5
    assert time.perf_counter() - started >= 0.19


def test_argument_errors_are_raised_before_anything_is_sent(client: Client) -> None:
    with pytest.raises(TypeError):
        client.echo("text")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        client.upper("x", delay=-1)
    with pytest.raises(ValueError):
        client.sleep(float("nan"))
    with pytest.raises(ValueError):
        client.blob(-1)
    with pytest.raises(ValueError):
        client.echo(b"x", timeout=0)
    with pytest.raises(ValueError):
        client.call("")
    assert client.echo(b"ok") == b"ok"


def test_concurrent_slow_calls_overlap_on_one_connection(server: ServerProcess) -> None:
    with Client(*server.address, timeout=10) as client:
        started = time.perf_counter()
        threads = [threading.Thread(target=client.sleep, args=(0.3,)) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert time.perf_counter() - started < 1.5


def test_stats_count_served_requests(server: ServerProcess) -> None:
    with Client(*server.address) as client:
        before = client.stats()
        for _ in range(10):
            client.echo(b"x")
        after = client.stats()
    assert after.requests_served - before.requests_served >= 10
    assert after.connections_open >= 1


def test_token(tmp_path: Path) -> None:
    proc = start_server("--token", "s3cret")
    try:
        with Client(*proc.address, token="s3cret") as client:
            assert client.echo(b"authorised") == b"authorised"
    finally:
        assert proc.stop() == 0


@pytest.mark.parametrize("model", ["async", "threaded"])
def test_tls(tmp_path: Path, model: str) -> None:
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    chain = tmp_path / "server.pem"
    cert.private_key_and_cert_chain_pem.write_to_path(str(chain))
    proc = start_server("--model", model, "--tls-cert", str(chain))
    try:
        context = ssl.create_default_context()
        ca.configure_trust(context)
        with Client(*proc.address, tls=context, timeout=10) as client:
            assert client.echo(b"secret") == b"secret"
            assert client.blob(3 << 20, seed=3) == blob_bytes(3 << 20, 3)
            assert list(client.words(3)) == [word_at(i) for i in range(3)]
        untrusting = ssl.create_default_context()
        with pytest.raises(Exception) as info:
            Client(*proc.address, tls=untrusting, connect_timeout=5)
        assert "certificate" in str(info.value).lower()
    finally:
        assert proc.stop() == 0


def test_works_where_the_os_has_no_poll(server: ServerProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows has no select.poll(): each wait then uses a selector."""
    import select

    monkeypatch.delattr(select, "poll")
    with Client(*server.address, timeout=5) as client:
        assert client.echo(b"no poll") == b"no poll"
        assert client.upper("slow", delay=0.05) == "SLOW"
        assert list(client.words(3)) == ["alpha", "hotel", "oscar"]
        assert client._conn is not None and client._conn._read_poll is None
