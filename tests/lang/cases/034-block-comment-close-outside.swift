// Comments do not nest, so a second */ is stray code.
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 4:18
/* one /* two */ */
trace(1);
