// input_url makes a url (§12): its name is the URL itself, and it is never fetched.
url u = input_url("http://example.org/x");
trace(filename(u));
