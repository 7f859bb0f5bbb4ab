"""The fault matrix, part one: a slow, sliced or throttled network (see fault_matrix.py)."""

from tests.contract.fault_matrix import NETWORK, matrix_case

test_a_call_under_a_network_fault_ends_in_time_and_the_client_recovers = matrix_case(NETWORK)
