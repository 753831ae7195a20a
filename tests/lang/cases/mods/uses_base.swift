// Included by 1269: uses the macro BASE defined before the #include.
(int o) plus_base(int x) { o = x + BASE; }
