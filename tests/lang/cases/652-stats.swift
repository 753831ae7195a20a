// sum_integer, sum_float, avg and population std.
import stats;
trace(sum_integer([1, 2, 3]), sum_float([0.5, 1.5]), avg([1.0, 2.0, 3.0, 4.0]),
      std([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]));
