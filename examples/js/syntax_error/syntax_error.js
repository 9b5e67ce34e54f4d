// A syntax error is reported at its line in this file.
const ok = 1;
const broken = {
  a: 1,
  b: 2
  c: 3,
};
