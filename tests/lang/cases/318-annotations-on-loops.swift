// Loop annotations are accepted and ignored.
@sync foreach i in [1:2] {
  trace("sync", i);
}
@async foreach i in [1:1] {
  trace("async", i);
}
@splitdegree=4 foreach i in [1:1] {
  trace("split", i);
}
@leafdegree=2 foreach i in [1:1] {
  trace("leaf", i);
}
@unroll=2 foreach i in [1:1] {
  trace("unroll", i);
}
