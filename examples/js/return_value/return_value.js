// A top-level return is emitted last; non-strings as JSON.
text("first");
const rows = [
  { id: 1, name: "alpha" },
  { id: 2, name: "beta" },
];
return rows.filter((r) => r.id > 1);
