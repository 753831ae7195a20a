// Float-keyed arrays; keys print in float text form.
string label[float];
label[0.5] = "half";
label[2.0] = "two";
foreach v, k in label {
  trace(k, v);
}
