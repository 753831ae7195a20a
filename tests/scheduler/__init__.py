"""Tests of the scheduler: the pure state machine, policy, and real local workers."""
