"""The lab behind ``dualio bench``: what each way of being sync and async costs.

- :mod:`dualio.lab.bench`: ``dualio bench``, the scenarios measured against servers it starts.
- :mod:`dualio.lab.compare`: ``dualio bench compare``, two runs' results.json cell by cell.
- :mod:`dualio.lab.instructions`: the client's own cost per call with no server, in
  instructions (``python -m dualio.lab.instructions``) and in CPU time.
- :mod:`dualio.lab.peers`: the hand-written clients and server of the wire format that the
  SDK is measured against.
- :mod:`dualio.lab.common`: what more than one of them uses.
"""
