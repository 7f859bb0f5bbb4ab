"""The wire and the transports over it, one folder per layer.

- ``wire/``: protocol v1 codec, state machines and the call table; no I/O, safe
  for both faces.
- ``blocking/``: the blocking socket transport.
- ``native/``: async only; the anyio transport and the asyncio fast path.
- ``emulation/``: async only; the blocking transport driven from an event loop.
- ``interface.py``: the transport interfaces the faces are typed against.
- ``running_loop.py``: async only; which loop runs and how a thread reaches it.
"""
