"""The worker side: the task contract (`contract.py`) and what runs a task on a worker (`run.py`).

The runtime and the scheduler depend on this package; it depends on neither.
"""
