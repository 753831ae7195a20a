// Array elements become argv entries in ascending key order.
// ORDERED
app (void v) show(string words[]) {
  "printf" "%s\n" words
}
string A[];
A[10] = "ten";
A[2] = "two";
A[1] = "one";
show(A);
