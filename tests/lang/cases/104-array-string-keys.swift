// String-keyed arrays.
float price[string];
price["tea"] = 1.5;
price["cake"] = 3.0;
trace(price["cake"], size(price), contains(price, "tea"));
