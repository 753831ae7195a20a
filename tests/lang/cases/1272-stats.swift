// stats(A) gives the mean and the population standard deviation (§12).
import stats;
float m, s;
m, s = stats([2, 4, 4, 4, 5, 5, 7, 9]);
trace(m, s);
