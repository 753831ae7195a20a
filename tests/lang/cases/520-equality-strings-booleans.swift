// == and != on strings, booleans and floats.
trace("abc" == "abc", "a" != "b", true == false, 2.0 == 2.0, "" == "");
