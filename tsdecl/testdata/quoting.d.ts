declare const tools: {
  /** Keys that are not identifiers, and descriptions with *\/ inside. */
  http__request(args: {
    /** @format uri */
    url: string;
    headers?: {
      /** @default "application/json" */
      "content-type"?: string;
      "X-Request-Id"?: string;
      /** One-time code */
      "2fa"?: string;
      "@type"?: string;
      /** A literal $ref key, not a reference */
      $ref?: string;
      "with \"quotes\""?: string;
      "ünïcode"?: string;
      /** The empty key */
      ""?: string;
    } & { [key: string]: string };
    /** Any JSON body. Comments like /* this *\/ or *\/ must not end the doc comment. */
    body?: unknown;
    /**
     * Seconds.
     *
     *    Indented second paragraph.
     * @deprecated
     * @default 30
     */
    timeout?: number;
  }): Promise<unknown>;
  my_ns__9lives(args: { default: string; class?: string }): Promise<unknown>;
};
