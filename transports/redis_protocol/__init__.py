"""The Redis protocol (RESP3), client side, as the wire interface
(:mod:`dualio_transports.wire.protocol`) has it: its codec (:mod:`.resp`), the commands
the server holds (:mod:`.commands`), its subscriptions (:mod:`.subscriptions`), its
errors (:mod:`.errors`) and the connection's state machine (:mod:`.client_protocol`)."""
