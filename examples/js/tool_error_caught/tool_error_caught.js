// A failing tool rejects with a ToolError that try/catch can handle.
try {
  await tools.delete_repo({ name: "prod" });
} catch (e) {
  text(`${e.name} from ${e.tool} [${e.code}]: ${e.message}`);
  text(`instanceof Error: ${e instanceof Error}`);
}
const fallback = await tools.list_repos();
return fallback;
