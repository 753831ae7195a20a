// [a:b:s] steps by s up to b.
foreach v, k in [1:10:3] {
  trace(k, v);
}
