"""Bad numbers and names are typed errors before anything is sent, on both faces and
on the server (every request failure is an ERROR frame, never a dropped connection)."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from dualio import AsyncClient
from dualio_sync import Client, RemoteError
from dualio_transports.dualio_protocol.methods import MAX_SECONDS
from dualio_transports.wire.errors import ErrorCode
from tests.conftest import ServerProcess

HUGE = 10**400

BAD_CONSTRUCTOR: dict[str, tuple[dict[str, Any], type[Exception]]] = {
    "port-over-65535": ({"port": 65536}, ValueError),
    "port-negative": ({"port": -1}, ValueError),
    "port-str": ({"port": "7878"}, TypeError),
    "host-empty": ({"host": ""}, TypeError),
    "timeout-huge-int": ({"timeout": HUGE}, ValueError),
    "timeout-over-max": ({"timeout": 1e300}, ValueError),
    "timeout-nan": ({"timeout": float("nan")}, ValueError),
    "connect-timeout-huge-int": ({"connect_timeout": HUGE}, ValueError),
    "token-too-long": ({"token": "x" * 1025}, ValueError),
    "token-bytes": ({"token": b"x"}, TypeError),
    "tls-not-a-context": ({"tls": True}, TypeError),
    "max-frame-size-small": ({"max_frame_size": 10}, ValueError),
}


@pytest.mark.parametrize(("kwargs", "error"), BAD_CONSTRUCTOR.values(), ids=BAD_CONSTRUCTOR.keys())
def test_bad_constructor_arguments_are_typed_errors_on_both_faces(
    kwargs: dict[str, Any], error: type[Exception]
) -> None:
    options = {"host": "127.0.0.1", "port": 1, **kwargs}
    with pytest.raises(error):
        Client(**options)  # raised before any connect: port 1 would be refused
    with pytest.raises(error):
        AsyncClient(**options)


BAD_CALLS: dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]] = {
    "sleep-huge-int": ("sleep", (HUGE,), {}),
    "sleep-1e20": ("sleep", (1e20,), {}),
    "sleep-over-a-day": ("sleep", (MAX_SECONDS + 1,), {}),
    "echo-delay-nan": ("echo", (b"x",), {"delay": float("nan")}),
    "echo-timeout-huge": ("echo", (b"x",), {"timeout": HUGE}),
    "words-wait-inf": ("words", (3,), {"wait": float("inf")}),
}


@pytest.mark.parametrize(("method", "args", "kwargs"), BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_numbers_are_value_errors_and_the_client_stays_usable(
    server: ServerProcess, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    with Client(*server.address, timeout=5) as client:
        with pytest.raises(ValueError):
            getattr(client, method)(*args, **kwargs)  # words() checks before it returns
        assert client.echo(b"still usable") == b"still usable"


@pytest.mark.parametrize("seconds", [1e20, MAX_SECONDS * 2, float("inf"), float("nan"), -1.0])
def test_the_server_answers_bad_seconds_with_an_error_frame(
    any_server: ServerProcess, seconds: float
) -> None:
    with Client(*any_server.address, timeout=5) as client:
        with pytest.raises(RemoteError) as info:
            client.call("sleep", struct.pack(">d", seconds))
        assert info.value.code == ErrorCode.BAD_ARGUMENTS
        assert client.echo(b"still usable") == b"still usable"
