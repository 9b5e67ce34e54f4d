/** An MCP content block. */
type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };
declare const tools: {
  /** Get the weather forecast for a location. */
  mcp__weather_api__get_forecast(args: {
    /** @minimum -90 @maximum 90 */
    latitude: number;
    /** @minimum -180 @maximum 180 */
    longitude: number;
    /** @minimum 1 @maximum 14 @default 3 */
    days?: number;
  }): Promise<{
    content: McpContent[];
    structuredContent: {
      location: string;
      daily: Array<{
        /** @format date */
        date: string;
        high_c: number;
        low_c: number;
        conditions?: string;
      }>;
    };
  }>;
  /** Returns the MCP_TINY_IMAGE */
  mcp__everything__getTinyImage(args?: {}): Promise<{ content: McpContent[] }>;
  /**
   * Use the `apply_patch` tool to edit files.
   * The input is a patch in the *** Begin Patch / *** End Patch format; a comment terminator *\/ in the text is escaped.
   */
  apply_patch(input: string): Promise<unknown>;
  /** A tool that declares no input schema. */
  untyped(args?: { [key: string]: unknown }): Promise<unknown>;
  /** Runs a command in a PTY, returning output or a session ID for ongoing interaction. */
  exec_command(args: {
    /** Shell command to execute. */
    cmd: string;
    /** Optional working directory to run the command in; defaults to the turn cwd. */
    workdir?: string;
    /** How long to wait (in milliseconds) for output before yielding. */
    yield_time_ms?: number;
    /** Maximum number of tokens to return. Excess output will be truncated. */
    max_output_tokens?: number;
  }): Promise<{
    output: string;
    exit_code?: number | null;
    /** Set while the process is still running */
    session_id?: number | null;
    wall_time_seconds: number;
  }>;
};
