// args: --timeout 300ms
// A runaway loop is stopped by the wall-clock limit; output so far is kept.
text("spinning");
let i = 0;
while (true) {
  i++;
}
