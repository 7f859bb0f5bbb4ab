"""OpenTelemetry on both faces and every transport (``dualio_transports.policy.telemetry``),
with the SDK's in-memory exporters: a span per call with the RPC conventions' attribute
names, a stream as one span (calls made inside it spans of their own), a retried call as
one span with its retry events, a failed and a cancelled call with ``error.type``; and
telemetry that raises never fails a call."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from dualio.lab.common.fault_proxy import FaultProxy, Toxic
from dualio_sync import RemoteError, RetryPolicy, instrument
from tests.conftest import ServerProcess
from tests.contract.faces import Face, Transport

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]
QUICK_RETRY = RetryPolicy(attempts=5, base_delay=0.05, max_delay=0.1, budget=5.0)


@dataclass
class Otel:
    spans: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def durations(self) -> list[HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        assert data is not None
        (metric,) = [m for r in data.resource_metrics for s in r.scope_metrics for m in s.metrics]
        assert metric.name == "rpc.client.duration" and metric.unit == "ms"
        return list(metric.data.data_points)  # type: ignore[arg-type]


@pytest.fixture
def otel() -> Iterator[Otel]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield Otel(spans, reader, tracer_provider, meter_provider)
    tracer_provider.shutdown()
    meter_provider.shutdown()


def instrumented(face: Face, otel: Otel) -> Any:
    return instrument(face.client, tracer_provider=otel.tracer_provider,  # type: ignore[attr-defined]
                      meter_provider=otel.meter_provider)


def conventions(span: ReadableSpan, method: str, server: tuple[str, int]) -> None:
    assert span.name == f"dualio/{method}"
    assert span.kind is SpanKind.CLIENT
    attributes = dict(span.attributes or {})
    assert {k: attributes[k] for k in ("rpc.system", "rpc.service", "rpc.method", "server.address",
                                       "server.port")} == {
        "rpc.system": "dualio", "rpc.service": "dualio", "rpc.method": method,
        "server.address": server[0], "server.port": server[1],
    }


async def test_calls_streams_and_failures_are_spans_by_the_rpc_conventions(
    client: Face, server: ServerProcess, otel: Otel
) -> None:
    telemetry = instrumented(client, otel)
    assert await client.echo(b"traced") == b"traced"
    assert len(await client.words(6, echo_every=2)) == 6  # three echo calls inside the stream
    with pytest.raises(RemoteError):
        await client.call("no-such-method")
    spans = otel.finished()
    assert [s.name for s in spans] == ["dualio/echo"] * 4 + ["dualio/words", "dualio/no-such-method"]
    echo, *inside, words, failed = spans
    named = [(echo, "echo"), (words, "words"), (failed, "no-such-method"), *((s, "echo") for s in inside)]
    for span, method in named:
        conventions(span, method, server.address)
    assert echo.status.status_code is StatusCode.UNSET and "error.type" not in (echo.attributes or {})
    assert echo.attributes is not None and echo.attributes["dualio.attempts"] == 1
    assert isinstance(echo.attributes["dualio.request_id"], int)
    assert words.start_time is not None and words.end_time is not None
    assert all(words.start_time < s.start_time and s.end_time < words.end_time  # type: ignore[operator]
               for s in inside)
    assert failed.attributes is not None and failed.attributes["error.type"] == "ServiceError"
    assert failed.status.status_code is StatusCode.ERROR
    assert "no-such-method" in (failed.status.description or "")
    points = {(p.attributes or {})["rpc.method"]: p for p in otel.durations()}
    assert points["echo"].count == 4 and points["words"].count == 1
    assert (points["no-such-method"].attributes or {})["error.type"] == "ServiceError"
    assert all((p.attributes or {})["server.port"] == server.port for p in points.values())
    assert telemetry.in_flight == 0 and telemetry.errors == 0


async def test_a_retried_call_is_one_span_with_its_retries_as_events(
    transport: Transport, server: ServerProcess, otel: Otel
) -> None:
    with FaultProxy(server.address) as proxy:
        face = await transport.connect(proxy.address, retry=QUICK_RETRY)
        try:
            instrumented(face, otel)
            answers: list[bytes] = []

            async def call() -> None:
                answers.append(await face.echo(b"again", delay=0.5))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call)
                await anyio.sleep(0.2)  # the request is on its way
                proxy.set(Toxic("reset_peer"))
                proxy.clear()
            assert answers == [b"again"]
        finally:
            await face.aclose()
    (span,) = otel.finished()
    conventions(span, "echo", proxy.address)
    assert span.attributes is not None
    attempts = span.attributes["dualio.attempts"]
    assert isinstance(attempts, int) and attempts >= 2
    retries = [event for event in span.events if event.name == "dualio.retry"]
    assert [(e.attributes or {})["dualio.attempt"] for e in retries] == list(range(2, attempts + 1))
    assert span.status.status_code is StatusCode.UNSET
    (point,) = otel.durations()
    assert point.count == 1 and point.sum >= 500  # ms: the answer's delay, retries included


@pytest.mark.async_only
async def test_a_cancelled_call_ends_its_span_as_cancelled(client: Face, otel: Otel) -> None:
    telemetry = instrumented(client, otel)
    with anyio.move_on_after(0.2):
        await client.sleep(2)
    (span,) = otel.finished()
    assert span.attributes is not None and span.attributes["error.type"] == "CallCancelled"
    assert span.status.status_code is StatusCode.ERROR
    assert telemetry.in_flight == 0
    (point,) = otel.durations()
    assert point.count == 1  # told once
    assert await client.echo(b"after") == b"after"


@pytest.mark.async_only
async def test_a_stream_whose_consumer_is_cancelled_ends_its_span_as_cancelled(
    client: Face, otel: Otel
) -> None:
    telemetry = instrumented(client, otel)
    with anyio.move_on_after(0.3):
        await client.words(20, 0.1)
    (span,) = otel.finished()
    assert span.name == "dualio/words"
    assert span.attributes is not None and span.attributes["error.type"] == "CallCancelled"
    assert telemetry.in_flight == 0


async def test_a_call_in_flight_when_uninstrumented_still_ends_its_span(client: Face, otel: Otel) -> None:
    telemetry = instrumented(client, otel)
    answers: list[bytes] = []

    async def slow() -> None:
        answers.append(await client.echo(b"slow", delay=0.3))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(slow)
        await anyio.sleep(0.1)
        telemetry.uninstrument()
    assert answers == [b"slow"]
    (span,) = otel.finished()
    assert span.end_time is not None and telemetry.in_flight == 0
    assert await client.echo(b"after") == b"after"
    assert len(otel.finished()) == 1  # uninstrumented: no span for the later call


class _BrokenTracer(trace.Tracer):
    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        raise RuntimeError("a broken tracer")

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a broken tracer")


class _BrokenTracerProvider(trace.TracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return _BrokenTracer()


class _RaisingExporter(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        raise RuntimeError("an exporter that raises")


async def test_telemetry_that_raises_never_fails_a_call_and_is_logged_once(
    transport: Transport, server: ServerProcess, otel: Otel, caplog: pytest.LogCaptureFixture
) -> None:
    raising = TracerProvider()
    raising.add_span_processor(SimpleSpanProcessor(_RaisingExporter()))
    broken_hook_calls: list[str] = []

    def broken_hook(started: object) -> None:
        broken_hook_calls.append(type(started).__name__)
        raise RuntimeError("a hook of the user's that raises")

    broken = await transport.connect(server.address, on_request=broken_hook)
    exporting = await transport.connect(server.address)
    try:
        telemetry = instrument(broken.client,  # type: ignore[attr-defined]
                               tracer_provider=_BrokenTracerProvider(), meter_provider=otel.meter_provider)
        instrument(exporting.client, tracer_provider=raising)  # type: ignore[attr-defined]
        with caplog.at_level(logging.ERROR):
            for n in range(3):
                assert await broken.echo(b"%d" % n) == b"%d" % n
                assert await exporting.echo(b"%d" % n) == b"%d" % n
        assert telemetry.errors == 3 and telemetry.in_flight == 0
        assert len([r for r in caplog.records if r.name == "dualio.telemetry"]) == 1
        assert broken_hook_calls == ["CallStarted"] * 3  # the user's hook ran, first, each time
        assert [(p.attributes or {})["rpc.method"] for p in otel.durations()] == ["echo"]
    finally:
        await broken.aclose()
        await exporting.aclose()
