"""``instrument``'s own contract, with no server: what it refuses, and that it gives a
client its hooks back (tests/contract/test_telemetry.py has the spans on every transport)."""

from __future__ import annotations

import sys

import pytest
from opentelemetry.sdk.trace import TracerProvider

from dualio import AsyncClient
from dualio_sync import CallStarted, Client, UsageError, instrument


def test_a_client_is_instrumented_once_and_gets_its_hooks_back() -> None:
    def mine(started: CallStarted) -> None:
        pass

    client = Client("127.0.0.1", 1, lazy=True, on_request=mine)
    telemetry = instrument(client, tracer_provider=TracerProvider())
    assert client.on_request == telemetry.on_request and client.on_response == telemetry.on_response
    with pytest.raises(UsageError, match="instrumented already"):
        instrument(client)
    telemetry.uninstrument()
    assert client.on_request is mine and client.on_response is None
    again = instrument(client)  # and it may be instrumented again
    again.uninstrument()


def test_the_async_face_is_instrumented_the_same_way() -> None:
    client = AsyncClient("127.0.0.1", 1, lazy=True)
    telemetry = instrument(client)
    assert client.on_response == telemetry.on_response
    telemetry.uninstrument()
    assert client.on_request is None and client.on_response is None


@pytest.mark.parametrize("bad", [{"tracer_provider": "not a provider"}, {"meter_provider": TracerProvider()}])
def test_a_provider_that_is_not_one_is_a_type_error(bad: dict[str, object]) -> None:
    client = Client("127.0.0.1", 1, lazy=True)
    with pytest.raises(TypeError, match="must be an opentelemetry"):
        instrument(client, **bad)  # type: ignore[arg-type]
    assert client.on_request is None and client.on_response is None


def test_without_opentelemetry_instrument_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "opentelemetry" or m.startswith("opentelemetry.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import opentelemetry: ImportError
    with pytest.raises(UsageError, match=r"pip install 'dualio\[otel\]'"):
        instrument(Client("127.0.0.1", 1, lazy=True))
