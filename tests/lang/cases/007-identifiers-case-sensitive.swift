// Identifiers are case-sensitive and may use underscores and digits.
int value = 1;
int Value = 2;
int _v_3 = 3;
int VALUE_4 = 4;
trace(value, Value, _v_3, VALUE_4);
