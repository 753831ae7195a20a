// argv() of a missing flag without default is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: argv(): The command line did not provide 'size'
import sys;
trace(argv("size"));
