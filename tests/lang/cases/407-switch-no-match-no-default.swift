// A switch with no matching case and no default does nothing.
switch (toint("9")) {
  case 1:
    trace("one");
}
trace("after");
