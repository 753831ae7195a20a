// && binds tighter than ||; ! binds tightest.
trace(true || false && false, !false && true, !(true && false), false && false || true);
