// Importing a module that does not exist is a compile error.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:1 or 4:8
import no.such.module;
trace(1);
