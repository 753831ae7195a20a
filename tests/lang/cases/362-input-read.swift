// input() is the same as input_file().
import files;
trace(read(input("greeting.txt")) == "hello\n");
