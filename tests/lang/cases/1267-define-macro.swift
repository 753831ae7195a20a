// `#define NAME text` replaces the token NAME afterwards (§12).
#define N 5
#define TWICE (N * 2)
#define GREETING "hi"
trace(N, TWICE, GREETING);
