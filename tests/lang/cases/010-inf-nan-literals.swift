// inf and NaN are float literals; text forms Inf, -Inf, NaN.
trace(inf, -inf, NaN);
