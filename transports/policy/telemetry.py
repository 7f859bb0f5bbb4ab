"""OpenTelemetry for a client, built on its hooks (no I/O): a span per call and a duration
histogram, by the OpenTelemetry RPC semantic conventions for dualio's protocol and by the
database ones for Redis (:class:`Conventions`).

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
- **Redis** (``dualio.redis.Redis``, ``dualio_sync.redis.Redis``), by the database
  conventions: spans named by the command (``GET``; ``pipeline`` and ``transaction`` for
  batches), with ``db.system.name`` ``redis``, ``db.operation.name`` (the command),
  ``db.namespace`` (the database's number), ``server.address`` and ``server.port``; the
  histogram ``db.client.operation.duration``, in seconds. Never a key or a value.

Nothing is paid while a client is not instrumented (it has no hooks). The hooks the
client had are kept and called first. Telemetry never fails a call: a tracer, a meter or
a span processor that raises is logged once per instrumentation, then only counted (the
SDK's own processors catch what their exporters raise, and log it themselves).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Conventions:
    """Which OpenTelemetry semantic conventions a client's telemetry follows."""

    system: tuple[tuple[str, str], ...]  # what the protocol and the server are
    span_prefix: str  # before the method in a span's name
    method_key: str  # the attribute naming the method
    metric: str
    unit: str
    per_second: float  # the metric's units in a second
    description: str
    namespace_key: str | None = None  # the attribute naming the client's ``db``

    def attributes(self, client: Instrumentable) -> dict[str, Any]:
        """What every span and measurement of ``client`` says."""
        attributes: dict[str, Any] = dict(self.system)
        if self.namespace_key is not None:
            attributes[self.namespace_key] = str(getattr(client, "db", 0))
        return {**attributes, "server.address": client.host, "server.port": client.port}


RPC = Conventions(
    (("rpc.system", SYSTEM), ("rpc.service", SYSTEM)), f"{SYSTEM}/", "rpc.method", DURATION, "ms", 1000.0,
    "Measures the duration of outbound RPC.",
)



class Instrumentable(Protocol):
    """What instrumenting needs of a client: ``Client``, ``AsyncClient`` and both
    ``Redis`` faces are. ``telemetry_conventions``, when a client has it, says which
    conventions it follows (RPC's otherwise)."""

    host: str
    port: int
    on_request: RequestCallback | None
    on_response: ResponseCallback | None


class Instrumentation:
    """A client's telemetry, from :func:`instrument`; :meth:`uninstrument` ends it."""

    def __init__(
        self, client: Instrumentable, tracer: Tracer, duration: Histogram, conventions: Conventions = RPC,
    ) -> None:
        self._client = client
        self._tracer = tracer
        self._duration = duration
        self._conventions = conventions
        self._previous = (client.on_request, client.on_response)
        self._spans: dict[int, Span] = {}  # by call number: the calls in flight
        self._base: dict[str, Any] = conventions.attributes(client)
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

                conventions = self._conventions
                attributes = {**self._base, conventions.method_key: started.method}
                self._spans[started.call_number] = self._tracer.start_span(
                    f"{conventions.span_prefix}{started.method}", kind=SpanKind.CLIENT, attributes=attributes,
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
            attributes = {**self._base, self._conventions.method_key: finished.method}
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
            self._duration.record(finished.duration * self._conventions.per_second, attributes)
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
    """Trace and measure every call of ``client`` (a ``Client``, an ``AsyncClient`` or a
    ``Redis`` of either face) with OpenTelemetry; the global providers unless given.
    UsageError if it already is, or if ``opentelemetry-api`` is not installed."""
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
    conventions: Conventions = getattr(client, "telemetry_conventions", RPC)
    duration = meter.create_histogram(
        conventions.metric, unit=conventions.unit, description=conventions.description
    )
    instrumentation = Instrumentation(client, tracer, duration, conventions)
    client.on_request = instrumentation.on_request
    client.on_response = instrumentation.on_response
    return instrumentation
