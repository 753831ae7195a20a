// propagate gives a void to wait on.
int a = 1;
string b = "two";
void both = propagate(a, b);
wait (both) {
  trace(a, b);
}
