// glob returns matching files sorted, keyed from 0.
import files;
file F[] = glob("data/*.txt");
foreach f, i in F {
  trace(i, basename(f));
}
