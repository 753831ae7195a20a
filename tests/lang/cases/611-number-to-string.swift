// Number-to-string conversions use the text form.
trace(fromint(5), int2string(-3), fromfloat(2.0), float2string(1e17), toString(0.5), toString(7));
