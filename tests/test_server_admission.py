"""Admission, as both server models apply it: at most ``max_connections`` open, and what
one more is sent (ERROR id 0 BUSY, nothing over TLS), logged once per LOG_INTERVAL."""

from __future__ import annotations

import logging
import ssl

import pytest

from dualio.server.admission import Admission
from dualio.server.config import ServerConfig
from dualio.server.log_throttle import LOG_INTERVAL
from dualio_transports.dualio_protocol.client_protocol import decode_error
from dualio_transports.dualio_protocol.frames import FrameDecoder, FrameKind
from dualio_transports.wire.errors import ErrorCode


def test_admits_up_to_max_connections() -> None:
    admission = Admission(ServerConfig(max_connections=2))
    assert [admission.admits(n) for n in range(4)] == [True, True, False, False]


def test_a_refused_connection_is_sent_busy_and_counted() -> None:
    config = ServerConfig(max_connections=1)
    refusal = Admission(config).refusal(0.0)
    [frame] = FrameDecoder().feed(refusal)
    assert (frame.kind, frame.id) == (FrameKind.ERROR, 0)
    error = decode_error(frame.payload)
    assert (error.code, error.message) == (ErrorCode.BUSY, "connection limit reached")
    assert config.counters.snapshot().errors == 1


def test_over_tls_a_refused_connection_is_sent_nothing() -> None:
    config = ServerConfig(max_connections=1, tls=ssl.create_default_context(ssl.Purpose.CLIENT_AUTH))
    assert Admission(config).refusal(0.0) == b""
    assert config.counters.snapshot().errors == 0


def test_refusals_are_logged_once_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    admission = Admission(ServerConfig(max_connections=3))
    with caplog.at_level(logging.WARNING, logger="dualio.server"):
        for now in (100.0, 101.0, 102.0, 100.0 + LOG_INTERVAL):
            admission.refusal(now)
    assert caplog.messages == [
        "connection limit 3 reached: refusing new connections with BUSY (0 more refused since the last line)",
        "connection limit 3 reached: refusing new connections with BUSY (2 more refused since the last line)",
    ]
