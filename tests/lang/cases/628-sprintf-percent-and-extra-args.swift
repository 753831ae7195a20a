// %% is a percent sign; extra arguments are ignored.
import string;
trace(sprintf("100%%"), sprintf("%d", 1, 2));
