// An uncaught error fails the cell; line and column point into this file.
const users = [{ name: "ada" }, { name: "linus" }];
text("before the error");

function initials(user) {
  return user.profile.name[0];
}

users.map(initials);
