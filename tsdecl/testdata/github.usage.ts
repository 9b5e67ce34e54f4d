// Calls a model would write against the GitHub declarations.
async function triage(): Promise<string[]> {
  const issue = await tools.mcp__github__create_issue({ owner: "o", repo: "r", title: "Bug", labels: ["bug"] });
  const url: string = issue.html_url;
  await tools.mcp__github__search_issues({ query: "is:open", sort: "reactions-+1", order: "desc", perPage: 50 });
  await tools.mcp__github__update_issue({ owner: "o", repo: "r", issue_number: issue.number, state_reason: null, milestone: null });
  // @ts-expect-error title is required
  await tools.mcp__github__create_issue({ owner: "o", repo: "r" });
  // @ts-expect-error unknown enum value
  await tools.mcp__github__search_issues({ query: "x", order: "sideways" });
  return [url];
}
