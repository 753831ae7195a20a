// strcat, dircat and length.
trace(strcat("a", 1, 2.5), dircat("usr", "local", "bin"), length("héllo"));
