"""The handshake deadline, as both server models apply it: ``handshake_timeout`` from
accept, and a late peer dropped without a frame, counted, in one log line."""

from __future__ import annotations

import logging

import pytest

from dualio.server.config import ServerConfig
from dualio.server.handshake_deadline import drop_late_peer, handshake_deadline
from dualio_transports.dualio_protocol.server_protocol import ServerProtocol


def test_the_deadline_runs_from_accept() -> None:
    assert handshake_deadline(ServerConfig(handshake_timeout=2.5), 1000.0) == 1002.5


def test_a_late_peer_is_dropped_without_a_frame(caplog: pytest.LogCaptureFixture) -> None:
    config = ServerConfig(handshake_timeout=0.25)
    proto = ServerProtocol(on_error=config.counters.error)
    with caplog.at_level(logging.WARNING, logger="dualio.server"):
        drop_late_peer(config, proto, "10.0.0.1:5000")
    assert caplog.messages == ["10.0.0.1:5000: no HELLO within 0.2s of accept, closing"]
    assert proto.closing and proto.close_reason == "no HELLO within 0.2s of accept"
    assert proto.take_output() == b""
    assert config.counters.snapshot().errors == 1
