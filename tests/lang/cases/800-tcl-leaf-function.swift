// Tcl leaf functions are not supported.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 5:1 or 5:9 or 5:21
// STDERR: unsupported feature
(int o) add1(int i) "turbine" "0.0" [
  "set <<o>> [ expr <<i>> + 1 ]"
];
trace(add1(1));
