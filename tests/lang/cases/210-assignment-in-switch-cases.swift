// Assigning a variable in each case of a switch is one assignment.
string name;
switch (toint("2")) {
  case 1:
    name = "one";
  case 2:
    name = "two";
  default:
    name = "many";
}
trace(name);
