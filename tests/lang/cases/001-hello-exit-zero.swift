// A minimal program prints its trace line and exits with status 0.
trace("hello");
