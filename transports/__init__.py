"""The wire, the client's policy and the transports over them, one folder per layer.

- ``wire/``: protocol v1 codec, state machines, the call table (what a frame
  means), the procedure of a call (what a call does, as effects a transport
  performs) and the service methods; no I/O, safe for both faces.
- ``policy/``: what a client decides that is not the wire: retry, its connections'
  lifecycle, events and hooks, ``dualio://`` URLs, timeouts, connect options; no I/O.
- ``blocking/``: the blocking socket transport, and dialing a socket.
- ``native/``: async only; the anyio transport and the asyncio fast path.
- ``emulation/``: async only; the blocking transport driven from an event loop,
  with callback-style calls, a reader thread and cancel handles of its own.
- ``portal/``: the blocking face over the asyncio transport on a loop thread.
- ``interface.py``: the transport interfaces the faces are typed against.
- ``async_driver.py``: async only; running a call's procedure from a coroutine.
- ``running_loop.py``: async only; which loop runs and how a thread reaches it.
- ``pending_input.py``: whether a socket has bytes waiting, without reading.
- ``forks.py``: which process generation this is (fork safety).
- ``version.py``: the version.
"""
