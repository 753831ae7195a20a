// file_exists and file_size on paths.
import files;
trace(file_exists("sized.txt"), file_exists("nope.txt"), file_size("sized.txt"));
