// Parameter lists may be () or omitted.
() hello() {
  trace("hello");
}
bye {
  trace("bye");
}
hello();
bye();
