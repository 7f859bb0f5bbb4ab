"""The threaded model serves one request at a time per connection, yet a client's
keepalive PING and CANCEL are answered while a request waits."""

from __future__ import annotations

import time

import pytest

from dualio_sync import Client, DualioTimeout
from tests.conftest import ServerProcess

pytestmark = pytest.mark.timeout(30)


def test_a_long_request_survives_the_clients_keepalive(threaded_server: ServerProcess) -> None:
    # keepalive 0.2 s: a server silent for 0.4 s would be taken for dead
    with Client(*threaded_server.address, keepalive=0.2, retry=None, timeout=5) as client:
        started = time.monotonic()
        client.sleep(1.2)
        assert 1.2 <= time.monotonic() - started < 2.5
        assert not client.closed
        assert client.echo(b"after") == b"after"


def test_a_cancel_ends_the_waiting_request_and_frees_the_server(threaded_server: ServerProcess) -> None:
    with Client(*threaded_server.address, retry=None, timeout=5) as client:
        served_before = client.stats().requests_served
        with pytest.raises(DualioTimeout):
            client.sleep(10, timeout=0.2)  # gives up: CANCEL
        started = time.monotonic()
        assert client.echo(b"next") == b"next"  # not queued behind a 10 s sleep
        assert time.monotonic() - started < 1.0
        stats = client.stats()
        assert stats.requests_in_flight == 0  # the cancelled sleep is not running
        assert stats.requests_served >= served_before + 1


def test_requests_pipelined_during_a_wait_are_served_in_order(threaded_server: ServerProcess) -> None:
    import threading

    with Client(*threaded_server.address, retry=None, timeout=10) as client:
        answers: list[bytes] = []
        slow = threading.Thread(target=lambda: answers.append(client.echo(b"slow", delay=0.5)))
        slow.start()
        time.sleep(0.1)  # the slow request is waiting on the server now
        for i in range(20):
            assert client.echo(b"quick %d" % i) == b"quick %d" % i
        slow.join()
        assert answers == [b"slow"]
