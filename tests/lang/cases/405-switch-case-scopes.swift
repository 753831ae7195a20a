// Each case is its own scope and may hold several statements.
switch (toint("2")) {
  case 1:
    int y = 1;
    trace("case", y);
  case 2:
    int y = 2;
    trace("case", y);
    trace("second statement");
}
