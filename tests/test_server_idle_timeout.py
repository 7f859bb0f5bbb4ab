"""The idle timeout, as both server models apply it: when a connection has been idle
too long, why, and whether it is told goodbye."""

from __future__ import annotations

import logging

import pytest

from dualio.server.config import ServerConfig
from dualio.server.idle_timeout import Idleness, idle_check, idle_socket_timeout, log_idle_close

CONFIG = ServerConfig(idle_timeout=30.0)


def test_quiet_for_the_timeout_is_idle() -> None:
    why = idle_check(CONFIG, 130.0, last_received=100.0, in_flight=False, stalled_since=None)
    assert why is Idleness.IDLE


def test_quiet_for_less_looks_again_when_it_would_be_idle() -> None:
    assert idle_check(CONFIG, 120.0, last_received=100.0, in_flight=False, stalled_since=None) == 130.0


def test_a_request_in_flight_defers_by_a_whole_timeout() -> None:
    assert idle_check(CONFIG, 500.0, last_received=100.0, in_flight=True, stalled_since=None) == 530.0


def test_a_peer_that_reads_nothing_is_stalled_from_when_writing_paused() -> None:
    assert idle_check(CONFIG, 129.0, last_received=0.0, in_flight=True, stalled_since=100.0) == 130.0
    why = idle_check(CONFIG, 130.0, last_received=0.0, in_flight=True, stalled_since=100.0)
    assert why is Idleness.STALLED


def test_only_an_idle_connection_is_told_goodbye() -> None:
    assert Idleness.IDLE.says_goodbye
    assert not Idleness.STALLED.says_goodbye


def test_zero_turns_the_socket_timeout_off() -> None:
    assert idle_socket_timeout(ServerConfig(idle_timeout=0)) is None
    assert idle_socket_timeout(CONFIG) == 30.0


def test_log_lines(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="dualio.server"):
        log_idle_close(CONFIG, "p:1", Idleness.IDLE)
        log_idle_close(CONFIG, "p:1", Idleness.STALLED)
    assert caplog.messages == [
        "p:1: idle for 30s, closing",
        "p:1: the peer read none of the answers for 30s, closing",
    ]
