// A trailing \n in the format yields an extra empty line.
import io;
printf("line\n");
