// A variable declared and never read nor written gives one warning line; the program runs (§13).
// STDERR: 1466-never-used-warning.swift:3:5: warning: variable 'i' is never used
int i;
trace("ok");
