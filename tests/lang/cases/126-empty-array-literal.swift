// [] is an empty array.
int nothing[] = [];
trace(size(nothing));
