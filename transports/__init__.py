"""The wire: protocol v1 codec and state machines (no I/O) and the transports over them."""
