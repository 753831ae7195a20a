// {k: v} literals build associative arrays.
string color[string] = {"sky": "blue", "grass": "green"};
int n[string] = {"one": 1};
trace(color["sky"], n["one"], size(color));
