"""Where and how to connect: checked once, used by every transport."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass

from dualio_transports.policy.timeouts import check_timeout
from dualio_transports.wire import failures
from dualio_transports.wire.deadline import NO_DEADLINE, deadline, passed
from dualio_transports.wire.protocol import WireProtocol


@dataclass(frozen=True, slots=True)
class ConnectOptions:
    """Where and how to connect, whatever the protocol: the server's address, TLS, time
    limits, and the protocol spoken.

    ``connect_timeout`` bounds TCP connect, the TLS handshake and the protocol's own
    handshake together. With ``tls``, the certificate is checked against
    ``server_hostname`` (default: ``host``). ``keepalive``: seconds of silence
    after which the connection is checked with the protocol's probe (None: never; the
    sockets have SO_KEEPALIVE either way).
    """

    host: str = "127.0.0.1"
    port: int = 7878
    connect_timeout: float | None = 10.0
    tls: ssl.SSLContext | None = None
    server_hostname: str | None = None
    keepalive: float | None = 15.0
    protocol: Callable[[], WireProtocol] | None = None
    """Makes each connection's protocol state (:meth:`wire_protocol`); None: dualio's own
    protocol v1, with its defaults (``protocol_v1()``)."""
    unix_path: str | None = None
    """A Unix socket's path to connect to instead of ``host`` and ``port`` (no TLS)."""

    def __post_init__(self) -> None:
        if not isinstance(self.host, str) or not self.host:
            raise TypeError(f"host must be a non-empty str, not {self.host!r}")
        if isinstance(self.port, bool) or not isinstance(self.port, int):
            raise TypeError(f"port must be an int, not {type(self.port).__name__}")
        if not 0 <= self.port <= 0xFFFF:
            raise ValueError(f"port must be in 0..65535, got {self.port}")
        object.__setattr__(self, "connect_timeout", check_timeout("connect_timeout", self.connect_timeout))
        if self.tls is not None and not isinstance(self.tls, ssl.SSLContext):
            raise TypeError(f"tls must be an ssl.SSLContext or None, not {type(self.tls).__name__}")
        if self.server_hostname is not None and not isinstance(self.server_hostname, str):
            kind = type(self.server_hostname).__name__
            raise TypeError(f"server_hostname must be a str or None, not {kind}")
        if self.protocol is not None and not callable(self.protocol):
            raise TypeError(f"protocol must make a WireProtocol (a callable), not {self.protocol!r}")
        object.__setattr__(self, "keepalive", check_timeout("keepalive", self.keepalive))
        if self.unix_path is not None:
            if not isinstance(self.unix_path, str) or not self.unix_path:
                raise TypeError(f"unix_path must be a non-empty str or None, not {self.unix_path!r}")
            if self.tls is not None:
                raise ValueError("a Unix socket is not spoken to in TLS: give unix_path or tls, not both")

    def connect_deadline(self, until: float = NO_DEADLINE) -> float:
        """The deadline of one connect attempt made for a call that must end by ``until``:
        ``connect_timeout`` from now, or ``until`` if that comes first; the call's timeout
        error when ``until`` has passed. The transport that connects applies it (a face
        hands every transport the call's own deadline, and nothing else)."""
        if passed(until):
            raise failures.call_timeout()
        return min(until, deadline(self.connect_timeout))

    def wire_protocol(self) -> WireProtocol:
        """A new connection's protocol state (:class:`~dualio_transports.wire.protocol.WireProtocol`)."""
        if self.protocol is not None:
            return self.protocol()
        from dualio_transports.dualio_protocol.client_protocol import ClientProtocol  # the default's

        return ClientProtocol()

    @property
    def where(self) -> str:
        """The address, as errors name it: ``host:port``, or the Unix socket's path."""
        return f"unix:{self.unix_path}" if self.unix_path is not None else f"{self.host}:{self.port}"

    @property
    def tls_hostname(self) -> str:
        return self.server_hostname or self.host
