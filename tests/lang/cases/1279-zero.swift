// zero(v) is 0 once the void v is closed (§12).
void v = propagate();
trace(zero(v));
