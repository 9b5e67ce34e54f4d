// Edit a file (dry run first), then move it; TypeScript types in a cell.
type Edit = { oldText: string; newText: string };
const edits: Edit[] = [{ oldText: "colour", newText: "color" }];
const path = "/srv/project/notes.txt";
const preview = await tools.mcp__filesystem__edit_file({ path, edits, dryRun: true });
console.log(preview.structuredContent.content);
if (!preview.structuredContent.content.includes("colour")) return "nothing to change";
await tools.mcp__filesystem__edit_file({ path, edits });
await tools.mcp__filesystem__create_directory({ path: "/srv/project/archive" });
await tools.mcp__filesystem__move_file({ source: path, destination: "/srv/project/archive/notes.txt" });
const [info, sizes] = await Promise.all([
  tools.mcp__filesystem__get_file_info({ path: "/srv/project/archive/notes.txt" }),
  tools.mcp__filesystem__list_directory_with_sizes({ path: "/srv/project/archive", sortBy: "size" }),
]);
return { info: info.structuredContent.content, sizes: sizes.structuredContent.content };
