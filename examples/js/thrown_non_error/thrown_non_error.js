// Throwing something that is not an Error still fails cleanly.
text("about to throw");
throw { code: 42, reason: "not an Error object" };
