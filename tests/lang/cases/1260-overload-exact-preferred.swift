// An exact match wins over promotion (§12).
(string o) h(int x) { o = "int"; }
(string o) h(float x) { o = "float"; }
trace(h(1), h(1.0));
