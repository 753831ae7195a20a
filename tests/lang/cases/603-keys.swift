// keys_integer and keys_string are ascending, keyed from 0.
int A[];
A[10] = 1;
A[2] = 1;
A[7] = 1;
int K[] = keys_integer(A);
trace(K[0], K[1], K[2], size(K));
int B[string];
B["pear"] = 1;
B["apple"] = 2;
B["fig"] = 3;
string S[] = keys_string(B);
trace(S[0], S[1], S[2]);
