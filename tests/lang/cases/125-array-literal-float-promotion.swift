// An array literal with a float element is a float array.
G = [1, 0.5, 3];
trace(G[0], G[1], G[2]);
