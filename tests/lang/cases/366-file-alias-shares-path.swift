// g = f with g unmapped shares f's path.
file f = input("greeting.txt");
file g = f;
trace(filename(f), filename(g));
