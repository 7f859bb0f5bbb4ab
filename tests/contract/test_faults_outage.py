"""The fault matrix, part two: a server that stops answering, resets, cuts or vanishes
(see fault_matrix.py)."""

from tests.contract.fault_matrix import OUTAGES, matrix_case

test_a_call_during_an_outage_ends_in_time_and_the_client_recovers = matrix_case(OUTAGES)
