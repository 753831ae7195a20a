// Any assignment whose value needs the variable it writes is refused (§13).
// THIS-TEST-SHOULD-NOT-COMPILE
// ERROR-AT: 7:1
// STDERR: 'j'
int k = 1;
int j;
j = j + k;
trace(j);
