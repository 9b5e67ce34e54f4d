// store(key, value) keeps JSON values for later cells of the session;
// load(key) returns a fresh copy. Values that are not JSON are refused.
store("visited", ["home", "docs"]);
const copy = load("visited");
copy.push("changed only in the copy");
text(load("visited"));
try {
  store("handler", () => 1);
} catch (e) {
  text(`${e.name}: ${e.message}`);
}
return load("never-stored") === undefined;
