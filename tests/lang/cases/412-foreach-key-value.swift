// foreach v, k gives each value with its key.
foreach qty, fruit in {"fig": 12, "kiwi": 0} {
  trace(fruit, qty);
}
