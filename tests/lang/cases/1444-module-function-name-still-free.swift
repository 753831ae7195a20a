// §2 is unchanged: a user function wins over an un-imported standard-module function (§13).
(int o) sqrt (int i) {
  o = i * 10;
}
trace(sqrt(4));
