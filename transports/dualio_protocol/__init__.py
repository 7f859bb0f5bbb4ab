"""dualio's own protocol, version 1: its frames, its client and server state machines
(the client's is a wire interface, :mod:`dualio_transports.wire.protocol`), and the
service's methods. docs/protocol.md is its specification."""
