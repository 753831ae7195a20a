// A Python exception prints its traceback and is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: ValueError: boom
// ALLOW-TRACEBACK
import python;
trace(python("raise ValueError('boom')"));
