"""Locust users of a dualio server: ``class Load(DualioUser)``, then ``self.client.echo(...)``.

Each user has its own blocking :class:`~dualio_sync.Client`, made from Locust's ``host``
(``dualio://host:port``, ``dualios://...`` or ``host[:port]``). Every call it makes is
reported to Locust's ``request`` event through the client's ``on_response`` hook: type
and name the method (``"echo"``), its time from the first try to the answer or the final
error, the answer's size, the error. A call stopped by the test's end (Locust kills its
users' greenlets) is not a request that failed and is not reported. Needs Locust:
``pip install 'dualio[locust]'``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

try:
    import locust
    from locust.env import Environment
    from locust.exception import LocustError
except ImportError as exc:
    raise ImportError(
        "dualio.locust needs Locust, which is not installed: pip install 'dualio[locust]'"
    ) from exc

from dualio_sync import CallCancelled, CallFinished, Client, RetryPolicy
from dualio_transports.policy.url import parse_url

DEFAULT_OPTIONS: dict[str, Any] = {
    "timeout": 10.0,
    "connect_timeout": 5.0,
    "retry": RetryPolicy(attempts=1, base_delay=0.05, max_delay=0.5),
}
"""What a load test wants of each user's client: a call that takes longer than 10 s, or a
connect longer than 5 s, is a failure; a call that failed in a way safe to repeat (a
refused connect, a connection the server had closed) is tried once more, and a lost
connection is opened again by the next call."""

_RESERVED = frozenset({"lazy", "on_response"})


def client_url(host: str) -> str:
    """The ``dualio://`` URL for Locust's ``host``: a dualio URL as it is, ``host[:port]``
    made one (the port defaults to 7878)."""
    return host if "://" in host else f"dualio://{host}"


class DualioUser(locust.User):
    """A Locust user whose ``client`` is a ``dualio_sync.Client`` reporting every call.

    ``dualio_options`` (a class attribute) are keyword arguments for the client; they win
    over what the host URL says, which wins over :data:`DEFAULT_OPTIONS`. The client connects on its first
    call (``lazy``), so an unreachable server is a failed call, never a user that cannot
    start; ``on_response`` is the reporter. The client is closed in ``on_stop``: a subclass
    that overrides it calls ``super().on_stop()``.
    """

    abstract = True
    dualio_options: ClassVar[dict[str, Any]] = {}

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        if not self.host:
            raise LocustError(
                "no host to load: give --host dualio://HOST:PORT (or HOST:PORT), "
                "or set host on the user class"
            )
        reserved = sorted(_RESERVED & self.dualio_options.keys())
        if reserved:
            raise LocustError(f"dualio_options cannot set {', '.join(reserved)}: DualioUser sets it")
        self._call_names = threading.local()  # one per greenlet under gevent
        self.client: Client = Client(**{
            **DEFAULT_OPTIONS, **parse_url(client_url(self.host)), **self.dualio_options,
            "lazy": True, "on_response": self._report,
        })

    @contextmanager
    def named(self, name: str) -> Iterator[None]:
        """Report the calls made inside ``with self.named("..."):`` under ``name`` instead
        of their method's name (their type stays the method)."""
        outer = getattr(self._call_names, "name", None)
        self._call_names.name = name
        try:
            yield
        finally:
            self._call_names.name = outer

    def on_stop(self) -> None:
        self.client.close()

    def _report(self, done: CallFinished) -> None:
        if isinstance(done.error, CallCancelled):
            return  # stopped, not failed: the user's greenlet was killed
        self.environment.events.request.fire(
            request_type=done.method,
            name=getattr(self._call_names, "name", None) or done.method,
            response_time=done.duration * 1000,
            response_length=done.response_bytes,
            response=None,
            context=self.context(),
            exception=done.error,
            start_time=time.time() - done.duration,
        )
