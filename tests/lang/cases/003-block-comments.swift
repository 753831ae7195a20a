// Block comments may span lines and sit between tokens.
/* a block comment
   spanning several lines
   trace("hidden"); */
int /* inside a declaration */ x = 2;
trace(x /* inside a call */, 3);
