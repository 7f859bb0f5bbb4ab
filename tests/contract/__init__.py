"""The client-side behaviour contract, stated once and run on every transport.

See test_calls.py for how one case runs on the blocking client and on each async
transport, conftest.py for the parametrisation and faces.py for the transports.
"""
