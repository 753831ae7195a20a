// Variables declared in a chain link are visible in the next links (§12).
int y = 3 => int z = y + 1 => trace(z);
