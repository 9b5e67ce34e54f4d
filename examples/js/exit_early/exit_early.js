// exit() ends the cell successfully, and try/catch/finally cannot stop it.
text("working");
try {
  exit();
} catch (e) {
  text("caught exit (should not happen)");
} finally {
  text("finally (should not happen)");
}
text("after exit (should not happen)");
