// input_file() of a missing path is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
// STDERR: input_file: file 'absent.txt' does not exist
import files;
trace(read(input_file("absent.txt")));
