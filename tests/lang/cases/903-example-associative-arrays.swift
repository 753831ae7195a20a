// Spec example 4: associative arrays.
import io;
int stock[string];
stock["fig"] = 12;
stock["kiwi"] = 0;
stock["lime"] = 5;
printf("%i kinds", size(stock));
foreach qty, fruit in stock {
  if (qty == 0) { printf("restock %s", fruit); }
}
string color[string] = {"sky": "blue", "grass": "green"};
trace(color["grass"], contains(color, "sun"));
