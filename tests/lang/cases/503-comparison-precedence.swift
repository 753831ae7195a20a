// Comparisons bind tighter than equality, equality tighter than &&.
trace(1 + 1 == 2, 1 < 2 == 2 < 3, 3 > 2 && 2 > 1, 2 >= 3 != 1 <= 0);
