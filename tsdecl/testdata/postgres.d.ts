declare const tools: {
  /**
   * Run a read-only SQL query. Use $1, $2, … placeholders and pass values in params; never interpolate values into sql.
   */
  mcp__postgres__query(args: {
    /** The SQL statement. Only SELECT, WITH and EXPLAIN are allowed. */
    sql: string;
    /** Values for $1, $2, … in order. */
    params?: Array<string | number | boolean | null>;
    /** @minimum 1 @maximum 60000 @default 5000 */
    timeout_ms?: number;
    /** @exclusiveMinimum 0 @default 1000 */
    row_limit?: number;
  }): Promise<{
    columns: Array<{
      name: string;
      /** Postgres type name, e.g. int4, text, timestamptz */
      type: string;
    }>;
    /** Rows as arrays, in column order. */
    rows: unknown[][];
    row_count: number;
    truncated?: boolean;
  }>;
  /** List tables in a schema. */
  mcp__postgres__list_tables(args?: {
    /** @default "public" */
    schema?: string;
  }): Promise<unknown>;
};
