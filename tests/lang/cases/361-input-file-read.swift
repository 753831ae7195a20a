// input_file() gives an existing file.
import files;
import string;
trace(trim(read(input_file("greeting.txt"))));
