"""Attacks on the real server, both models, over loopback: each test asserts the server's
RSS growth, its CPU share while the attack holds and a well-behaved client's p99 latency
(see probe.py); ``pytest -s tests/stress`` prints the measured values."""
