// join_args joins its arguments.
import string;
trace(join_args("-", "a", "b", "c"));
