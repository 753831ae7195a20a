"""Power-grid LMP simulation: hourly DC optimal power flows on the Illinois 200-bus grid.

`network` (pandapower, run once) prepares a model file; `dcopf` (HiGHS) solves
hours from it; `profile` makes the synthetic load; the `prepare_model`,
`make_profile`, `solve_chunk` and `merge_chunks` modules are the workflow's
leaf programs, run as `python -m apps.lmps.NAME`.
"""
