// Comparisons of ints and of floats.
trace(1 < 2, 2.5 >= 2.5, 3 <= 2, 1.5 > -1.5, 4 != 4, 4 == 4);
