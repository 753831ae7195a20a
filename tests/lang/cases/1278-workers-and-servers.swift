// turbine_workers() and adlb_servers() count this run's ranks (§12).
// ARGS:
import sys;
trace(turbine_workers() >= 1, adlb_servers() >= 1);
