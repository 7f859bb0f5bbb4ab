"""The client's own cost per call, with no server: each way of calling runs a loop
(:mod:`~dualio.lab.instructions.call_loops`) on a fake peer
(:mod:`~dualio.lab.instructions.fake_peers`), counted in instructions by callgrind
(:mod:`~dualio.lab.instructions.counter`, ``python -m dualio.lab.instructions``) or timed
in process CPU time (``python -m dualio.lab.instructions.client_cost``). The Redis faces'
GETs are also counted against a real redis-server
(:mod:`~dualio.lab.instructions.real_redis`)."""
