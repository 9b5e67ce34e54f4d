declare const tools: {
  /** OpenAPI path item with x- extensions. */
  put_openapi_path(args?: {
    summary?: string;
    operations?: {
      /** Keys matching /^(get|put|post|delete|patch)$/. */
      [key: string]: { operationId?: string };
    };
    extensions?: { [key: `x-${string}`]: unknown };
    ids?: {
      /** @format uuid */
      [key: `${string}_id`]: string;
    };
    labels?: { team?: string } & { [key: string]: string };
    mixed?: {
      [key: `x-${string}`]: string;
      /** Keys matching /^[0-9]+$/, any other key. */
      [key: string]: number | boolean | string;
    };
    closed?: {};
    open?: { [key: string]: unknown };
    typed_map?: { [key: string]: number[] };
    strict?: { a?: string };
  }): Promise<unknown>;
};
