// Boolean literals; booleans print as 1 and 0.
trace(true, false, !true);
