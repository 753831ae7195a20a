// system1 splits a command into words and runs it without a shell (§12).
import sys;
trace(system1("echo one   two"));
trace(system1("echo $HOME;ls"));
