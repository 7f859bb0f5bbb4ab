"""What a client decides that is not the wire: retry, the lifecycle of its connections,
events and hooks, ``dualio://`` URLs, timeouts and connect options (no I/O; both faces)."""
