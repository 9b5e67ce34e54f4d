declare const tools: {
  /** Enums, consts and literals of every JSON type. */
  enum_and_const(args: {
    color: "red" | "green" | "blue";
    level?: 1 | 2 | 3 | 5 | 8;
    mixed?: "auto" | 0 | true | null;
    version: "2024-06-01";
    flag?: false;
    shape?: { kind: "unit"; size: [1, 1] };
    quote?: "it's" | "say \"hi\"" | "back\\slash" | "</script>" | "line\nbreak";
    /** ISO 3166-1 alpha-2 code */
    country?: string /* one of 62 values, e.g. "AD", "AE", "AF" */;
    empty_enum?: string;
  }): Promise<unknown>;
  /** Nullable type arrays and OpenAPI nullable. */
  nullable_fields(args: {
    a: string | null;
    b?: string | null;
    c?: { x?: number } | null;
    d?: string[] | null;
    e?: null;
    f?: number;
    g?: "x" | "y" | null;
    h?: { v?: string } | null;
    i?: unknown;
    j: never;
    k?: unknown;
  }): Promise<unknown>;
};
