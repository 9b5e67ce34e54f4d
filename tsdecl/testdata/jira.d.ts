declare const tools: {
  /** Create a Jira issue. Custom fields go in `fields` under their id (customfield_10010). */
  atlassian__jira_create_issue(args: {
    /** The project key, e.g. PROJ @pattern ^[A-Z][A-Z0-9_]+$ */
    project_key: string;
    /** Issue type name @example "Task" */
    issue_type: string;
    /** @maxLength 255 */
    summary: string;
    /** Issue description in Atlassian wiki markup */
    description?: string;
    priority?: { name: "Highest" | "High" | "Medium" | "Low" | "Lowest" };
    assignee?: { accountId: string } | null;
    /** @format date */
    due_date?: string;
    components?: { name?: string }[];
    /** Additional fields. */
    fields?: {
      labels?: string[];
      /** Keys matching /^customfield_[0-9]+$/. */
      [key: string]: unknown;
    };
  }): Promise<{
    id: string;
    key: string;
    /** @format uri */
    self: string;
  }>;
  /** Search issues with JQL. */
  atlassian__jira_search(args: {
    /** JQL query string @example "project = PROJ AND status = \"In Progress\"" */
    jql: string;
    /** @default ["summary", "status", "assignee"] */
    fields?: string[];
    expand?: string;
    /** @minimum 0 @default 0 */
    startAt?: number;
    /** @minimum 1 @maximum 100 @default 50 */
    maxResults?: number;
  }): Promise<unknown>;
};
