// Loop variables declared outside take their final values.
int i;
int total;
for (i = 0, total = 0; i < 5; i = i + 1, total = total + i) {
}
trace(i, total);
