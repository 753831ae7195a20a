// The four scalar types and their text forms.
int i = -3;
float f = 2.5;
string s = "txt";
boolean b = true;
trace(i, f, s, b);
