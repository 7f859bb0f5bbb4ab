"""OpenTelemetry for a client, built on its hooks (no I/O): a span per call and the RPC
client duration histogram, by the OpenTelemetry RPC semantic conventions.

    from dualio_sync import Client, instrument
    client = Client("127.0.0.1", 7878)
    instrument(client, tracer_provider=provider, meter_provider=meters)

Optional: ``pip install 'dualio[otel]'`` (``opentelemetry-api``); without a provider the
global ones are used, and with no SDK configured those record nothing.

- **A span per call**, kind CLIENT, named ``dualio/{method}``, whose parent is the span
  current where the call was made. A stream is one span, from its request to its end
  (all items taken, the consumer left, or an error).
- **Retries are events on the call's span** (``dualio.retry``, with ``dualio.attempt``),
  not spans of their own: the span lasts what its caller waited, which is also what
  the duration histogram records (the conventions ask for the two to agree), and the
  hooks tell when each try starts, not when a failed one ended.
- **Attributes**: ``rpc.system`` and ``rpc.service`` (``dualio``), ``rpc.method``,
  ``server.address``, ``server.port``; on failure ``error.type`` (the exception's class
  name) and the span's status ERROR with the message; on the span also
  ``dualio.attempts`` and ``dualio.request_id``.
- **Metric**: ``rpc.client.duration``, a histogram in milliseconds, with the same
  attributes as the span but the ``dualio.*`` ones.

Nothing is paid while a client is not instrumented (it has no hooks). The hooks the
client had are kept and called first. Telemetry never fails a call: a tracer, a meter or
a span processor that raises is logged once per instrumentation, then only counted (the
SDK's own processors catch what their exporters raise, and log it themselves).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from dualio_transports.policy.events import (
    CallFinished,
    CallStarted,
    RequestCallback,
    ResponseCallback,
    notify,
)
from dualio_transports.wire.errors import UsageError

if TYPE_CHECKING:
    from opentelemetry.metrics import Histogram, MeterProvider
    from opentelemetry.trace import Span, Tracer, TracerProvider

log = logging.getLogger("dualio.telemetry")

SYSTEM = "dualio"
"""``rpc.system`` and ``rpc.service``: the protocol, and its one service."""
DURATION = "rpc.client.duration"
RETRY_EVENT = "dualio.retry"
SCOPE = "dualio"


class Instrumentable(Protocol):
    """What instrumenting needs of a client: ``Client`` and ``AsyncClient`` both are."""

    host: str
    port: int
    on_request: RequestCallback | None
    on_response: ResponseCallback | None


class Instrumentation:
    """A client's telemetry, from :func:`instrument`; :meth:`uninstrument` ends it."""

    def __init__(self, client: Instrumentable, tracer: Tracer, duration: Histogram) -> None:
        self._client = client
        self._tracer = tracer
        self._duration = duration
        self._previous = (client.on_request, client.on_response)
        self._spans: dict[int, Span] = {}  # by call number: the calls in flight
        self._base: dict[str, Any] = {
            "rpc.system": SYSTEM, "rpc.service": SYSTEM,
            "server.address": client.host, "server.port": client.port,
        }
        self.errors = 0
        """Times telemetry itself raised (and the call went on)."""

    @property
    def in_flight(self) -> int:
        """Spans started and not yet ended."""
        return len(self._spans)

    def on_request(self, started: CallStarted) -> None:
        hook = self._previous[0]
        if hook is not None:
            notify(hook, started)
        try:
            if started.attempt == 1:
                from opentelemetry.trace import SpanKind

                attributes = {**self._base, "rpc.method": started.method}
                self._spans[started.call_number] = self._tracer.start_span(
                    f"{SYSTEM}/{started.method}", kind=SpanKind.CLIENT, attributes=attributes,
                )
            else:
                span = self._spans.get(started.call_number)
                if span is not None:
                    span.add_event(RETRY_EVENT, {"dualio.attempt": started.attempt})
        except Exception:
            self._failed()

    def on_response(self, finished: CallFinished) -> None:
        hook = self._previous[1]
        if hook is not None:
            notify(hook, finished)
        span = self._spans.pop(finished.call_number, None)
        try:
            attributes = {**self._base, "rpc.method": finished.method}
            error = finished.error
            if error is not None:
                attributes["error.type"] = type(error).__name__
            if span is not None:
                if error is not None:
                    from opentelemetry.trace import Status, StatusCode

                    span.set_attribute("error.type", attributes["error.type"])
                    span.set_status(Status(StatusCode.ERROR, str(error)))
                span.set_attribute("dualio.attempts", finished.attempts)
                if finished.request_id is not None:
                    span.set_attribute("dualio.request_id", finished.request_id)
                span.end()
            self._duration.record(finished.duration * 1000.0, attributes)
        except Exception:
            self._failed()

    def _failed(self) -> None:
        self.errors += 1
        if self.errors == 1:
            log.exception("dualio telemetry raised; the call goes on (logged once per client)")

    def uninstrument(self) -> None:
        """Give the client back the hooks it had; calls in flight end their spans as they end."""
        client = self._client
        if client.on_request == self.on_request:
            client.on_request = self._previous[0]
        if client.on_response == self.on_response:
            client.on_response = self._previous[1]


def instrument(
    client: Instrumentable, *, tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
) -> Instrumentation:
    """Trace and measure every call of ``client`` (a ``Client`` or an ``AsyncClient``)
    with OpenTelemetry; the global providers unless given. UsageError if it already is,
    or if ``opentelemetry-api`` is not installed."""
    try:
        from opentelemetry import metrics, trace
    except ImportError as exc:
        raise UsageError("telemetry needs opentelemetry-api: pip install 'dualio[otel]'") from exc
    from dualio_transports.version import VERSION

    for hook in (client.on_request, client.on_response):
        if isinstance(getattr(hook, "__self__", None), Instrumentation):
            raise UsageError("this client is instrumented already")
    if tracer_provider is not None and not isinstance(tracer_provider, trace.TracerProvider):
        raise TypeError(f"tracer_provider must be an opentelemetry TracerProvider, not {tracer_provider!r}")
    if meter_provider is not None and not isinstance(meter_provider, metrics.MeterProvider):
        raise TypeError(f"meter_provider must be an opentelemetry MeterProvider, not {meter_provider!r}")
    tracer = trace.get_tracer(SCOPE, VERSION, tracer_provider=tracer_provider)
    meter = metrics.get_meter(SCOPE, VERSION, meter_provider=meter_provider)
    duration = meter.create_histogram(
        DURATION, unit="ms", description="Measures the duration of outbound RPC."
    )
    instrumentation = Instrumentation(client, tracer, duration)
    client.on_request = instrumentation.on_request
    client.on_response = instrumentation.on_response
    return instrumentation
