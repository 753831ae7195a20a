// A float optional parameter.
(float o) scale(float x, float factor = 2.0) {
  o = x * factor;
}
trace(scale(1.5), scale(1.5, factor=0.5));
