// Hello world: top-level code and printf, no tasks.
import io;

string who = argv("who", "world");
printf("hello %s", who);
