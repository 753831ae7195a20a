// A parallel foreach over a range: every iteration is independent; results are gathered into an array.
import io;
import stats;

int n = toint(argv("n", "10"));
int squares[];
foreach i in [1:n] {
  squares[i] = i * i;
}
printf("sum of the first %i squares: %i", n, sum_integer(squares));
