declare const tools: {
  /** Create a new issue in a GitHub repository. */
  mcp__github__create_issue(args: {
    /** Repository owner */
    owner: string;
    /** Repository name */
    repo: string;
    /** Issue title */
    title: string;
    /** Issue body content */
    body?: string;
    /** Usernames to assign to this issue */
    assignees?: string[];
    /** Labels to apply to this issue */
    labels?: string[];
    /** Milestone number */
    milestone?: number;
    /** Type of this issue */
    type?: string;
  }): Promise<{
    id: number;
    number: number;
    /** @format uri */
    html_url: string;
    state: "open" | "closed";
  }>;
  /**
   * Search for issues in GitHub repositories using issues search syntax already scoped to is:issue
   */
  mcp__github__search_issues(args: {
    /** Search query using GitHub issues search syntax */
    query: string;
    /** Optional repository owner. If provided with repo, only issues for this repository are listed. */
    owner?: string;
    /** Optional repository name. If provided with owner, only issues for this repository are listed. */
    repo?: string;
    /** Sort field by number of matches of categories, defaults to best match */
    sort?: "comments" | "reactions" | "reactions-+1" | "reactions--1" | "reactions-smile" | "reactions-thinking_face" | "reactions-heart" | "reactions-tada" | "interactions" | "created" | "updated";
    /** Sort order */
    order?: "asc" | "desc";
    /** Results per page for pagination (min 1, max 100) @minimum 1 @maximum 100 */
    perPage?: number;
    /** Page number for pagination (min 1) @minimum 1 */
    page?: number;
  }): Promise<unknown>;
  /** Get the contents of a file or directory from a GitHub repository */
  mcp__github__get_file_contents(args: {
    /** Repository owner (username or organization) */
    owner: string;
    /** Repository name */
    repo: string;
    /** Path to file/directory (directories must end with a slash '/') @default "/" */
    path?: string;
    /**
     * Accepts optional git refs such as `refs/tags/{tag}`, `refs/heads/{branch}` or `refs/pull/{pr_number}/head`
     */
    ref?: string;
    /** Accepts optional commit SHA. If specified, it will be used instead of ref */
    sha?: string;
  }): Promise<unknown>;
  /** Update an existing issue in a GitHub repository. */
  mcp__github__update_issue(args: {
    owner: string;
    repo: string;
    /** @minimum 1 */
    issue_number: number;
    state?: "open" | "closed";
    /** Reason for the state change. Ignored unless state is changed. */
    state_reason?: "completed" | "not_planned" | "duplicate" | "reopened" | null;
    /** Milestone number, or null to remove it */
    milestone?: number | null;
    labels?: string[];
  }): Promise<unknown>;
};
