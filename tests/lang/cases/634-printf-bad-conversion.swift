// An unknown conversion is a run-time error.
// THIS-TEST-SHOULD-NOT-RUN
import io;
printf("%y", 1);
