// Escapes above 127 name code points, not bytes.
import string;
trace("\xe9t\xe9", strlen("\xe9"), "\351" == "\xe9");
