// Float text form below 1e-4 uses an exponent without padding.
trace(1.5e-7, 0.00001, 0.00012345, 5e-324, 1.0 / 3.0);
