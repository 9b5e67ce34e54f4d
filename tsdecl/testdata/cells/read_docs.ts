// Read every Markdown file of a directory at once and report their sizes.
const dir = "/srv/project";
const listing = await tools.mcp__filesystem__list_directory({ path: dir });
const names = listing.structuredContent.content
  .split("\n")
  .filter((line) => line.startsWith("[FILE]") && line.endsWith(".md"))
  .map((line) => line.slice("[FILE] ".length));
const files = await Promise.all(
  names.map((name) => tools.mcp__filesystem__read_text_file({ path: `${dir}/${name}`, head: 20 })),
);
const sizes = names.map((name, i) => ({ name, chars: files[i].structuredContent.content.length }));
sizes.sort((a, b) => b.chars - a.chars);
console.log(`${sizes.length} Markdown files`);
return sizes.slice(0, 5);
