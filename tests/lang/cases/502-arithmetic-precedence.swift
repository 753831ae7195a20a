// * / %/ %% bind tighter than + -; same level is left-associative.
trace(2 + 3 * 4, (2 + 3) * 4, 10 - 4 - 3, 2 * 3 %% 4, 20 %/ 3 * 3, 1 + 2 ** 2);
