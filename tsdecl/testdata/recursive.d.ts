declare const tools: {
  /** Apply an arbitrary JSON document as a value. */
  json_patch_apply(args: {
    target: string;
    value: /* json */ string | number | boolean | null | Array<unknown /* recursive: json */> | { [key: string]: unknown /* recursive: json */ };
  }): Promise<unknown>;
  /** Replace the org chart. */
  org_chart(args: {
    root: /* Employee */ {
      name: string;
      /** Their manager, if any */
      manager?: unknown /* recursive: Employee */;
      reports?: Array<unknown /* recursive: Employee */>;
    };
    by_path?: { [key: string]: string };
  }): Promise<unknown>;
  /** Evaluate a boolean expression tree (self-reference through the root). */
  boolean_expr(args: {
    op: "and" | "or" | "not" | "var";
    name?: string;
    args?: Array</* Expr */ {
      op: "and" | "or" | "not" | "var";
      name?: string;
      args?: Array<unknown /* recursive: Expr */>;
    }>;
  }): Promise<unknown>;
  /** Refs by $anchor and inside a nested $id resource. */
  anchors_and_ids(args?: {
    point?: { x: number; y: number };
    shape?: { kind?: "circle" | "square" };
    remote?: unknown;
    dangling?: unknown;
  }): Promise<unknown>;
};
