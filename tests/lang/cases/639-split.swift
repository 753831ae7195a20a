// split: each delimiter character separates; adjacent ones give empty strings.
import string;
string A[] = split("a b  c");
trace(size(A), A[0], A[2] == "", A[3]);
string B[] = split("a,b;c", ",;");
trace(size(B), B[1], B[2]);
string C[] = split("", ",");
trace(size(C));
