// statagg gives (n, mean, M2); stat_combine merges PartialStats (§12).
import stats;
int n1; float m1, q1;
n1, m1, q1 = statagg([1.0, 2.0]);
int n2; float m2, q2;
n2, m2, q2 = statagg([3, 4]);
trace(n1, m1, q1, n2, m2, q2);
PartialStats P[];
P[0] = PartialStats(n1, m1, q1);
P[1] = PartialStats(n2, m2, q2);
int n; float mean, std;
n, mean, std = stat_combine(P);
trace(n, mean, std == sqrt(1.25));
