// With exceptions_are_errors=false an exception returns __EXCEPTION__.
// ALLOW-TRACEBACK
import python;
trace(python("raise ValueError('boom')", "'unused'", exceptions_are_errors=false));
