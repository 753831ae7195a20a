"""Helpers for the MosaStore tests: stores started and stopped by PID, and the locality count."""
