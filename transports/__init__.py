"""The wire, the client's policy and the transports over them, one folder per layer.

- ``wire/``: protocol v1 codec, state machines, the call table (every decision
  about a call) and the service methods; no I/O, safe for both faces.
- ``policy/``: what a client decides that is not the wire: retry, its connections'
  lifecycle, events and hooks, ``dualio://`` URLs, timeouts, connect options; no I/O.
- ``blocking/``: the blocking socket transport, and dialing a socket.
- ``native/``: async only; the anyio transport and the asyncio fast path.
- ``emulation/``: async only; the blocking transport driven from an event loop.
- ``portal/``: the blocking face over the asyncio transport on a loop thread.
- ``interface.py``: the transport interfaces the faces are typed against.
- ``running_loop.py``: async only; which loop runs and how a thread reaches it.
- ``pending_input.py``: whether a socket has bytes waiting, without reading.
- ``forks.py``: which process generation this is (fork safety).
- ``version.py``: the version.
"""
