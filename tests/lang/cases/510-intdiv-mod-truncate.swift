// %/ and %% truncate toward zero.
int p = 7, n = -7, two = 2, mtwo = -2;
trace(p %/ two, n %/ two, p %/ mtwo, n %/ mtwo);
trace(p %% two, n %% two, p %% mtwo, n %% mtwo);
