// trace joins text forms with commas; trace() prints 'trace: '.
trace(1, "a b", 2.5, true);
trace();
