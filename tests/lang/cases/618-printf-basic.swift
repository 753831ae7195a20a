// printf writes the formatted text and a newline.
import io;
printf("%s has %d items", "box", 3);
