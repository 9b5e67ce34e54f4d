// Function tools take one object; anything else is a TypeError that names
// the tool and what it got.
const errors = [];
for (const arg of ["Lisbon", 42, ["a"], null]) {
  try {
    await tools.get_weather(arg);
  } catch (e) {
    errors.push(`${e.name}: ${e.message}`);
  }
}
errors.push(JSON.stringify(await tools.get_weather()));
return errors;
