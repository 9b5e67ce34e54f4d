declare const tools: {
  /**
   * Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Only works within allowed directories.
   */
  filesystem__read_text_file(args: {
    path: string;
    /** If provided, returns only the last N lines of the file */
    tail?: number;
    /** If provided, returns only the first N lines of the file */
    head?: number;
  }): Promise<unknown>;
  /**
   * Create a new file or completely overwrite an existing file with new content. Use with caution as it will overwrite existing files without warning. Handles text content with proper encoding. Only works within allowed directories.
   */
  filesystem__write_file(args: { path: string; content: string }): Promise<unknown>;
  /**
   * Make line-based edits to a text file. Each edit replaces exact line sequences with new content. Returns a git-style diff showing the changes made. Only works within allowed directories.
   */
  filesystem__edit_file(args: {
    path: string;
    edits: Array<{
      /** Text to search for - must match exactly */
      oldText: string;
      /** Text to replace with */
      newText: string;
    }>;
    /** Preview changes using git-style diff format @default false */
    dryRun?: boolean;
  }): Promise<unknown>;
  /**
   * Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible. Use this to understand which directories and their nested paths are available before trying to access files.
   */
  filesystem__list_allowed_directories(args?: {}): Promise<unknown>;
  /** Get a recursive tree view of files and directories as a JSON structure. */
  filesystem__directory_tree(args: {
    path: string;
    /** @default [] */
    excludePatterns?: string[];
  }): Promise</* entry */ {
    name: string;
    type: "file" | "directory";
    /** Present for directories */
    children?: Array<unknown /* recursive: entry */>;
  }>;
};
