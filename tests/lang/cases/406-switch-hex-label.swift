// Case labels may be hex literals.
switch (toint("16")) {
  case 0x10:
    trace("sixteen");
  default:
    trace("other");
}
