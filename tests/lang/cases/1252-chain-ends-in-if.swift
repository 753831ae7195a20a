// A chain may end in a block or an if (§12).
int x = 2 => if (x > 1) { trace("big", x); } else { trace("small"); }
