// PI and E.
import math;
trace(PI, E);
