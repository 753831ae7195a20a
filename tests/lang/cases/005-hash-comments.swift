#!/usr/bin/env swiftcloud
// Hash comments (a shebang line too) run to the end of the line.
# a hash comment on its own line
int x = 4; # a hash comment after code
   # an indented hash comment
trace(x);
