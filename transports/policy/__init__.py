"""What a client decides that is not the wire: retry (and its polls' pauses, which news cuts
short), calls made at once, the lifecycle of its connections, events and hooks,
``dualio://`` URLs, timeouts and connect options (no I/O; both faces)."""
