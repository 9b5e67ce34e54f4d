declare const tools: {
  /** Send a notification over one channel (discriminated by `channel`). */
  send_notification(args: {
    target: {
      channel: "email";
      /** @format email */
      to: string;
      subject: string;
    } | {
      channel: "sms";
      /** @pattern ^\+[1-9][0-9]{7,14}$ */
      phone: string;
    } | {
      channel: "webhook";
      /** @format uri */
      url: string;
      headers?: { [key: string]: string };
    };
    message: string;
  }): Promise<unknown>;
  /** OpenAPI-style allOf extension of a base schema. */
  update_pet(args: {
    name: string;
    tag?: string | null;
    owner?: { id?: number; email?: string } | null;
  } & {
    /** @format int64 */
    id: number;
  }): Promise<unknown>;
  /** Pydantic-style optional fields (anyOf with null) and a lookup that needs one of two keys. */
  find_user(args: {
    /** @default null */
    email?: string | null;
    /** @default null */
    user_id?: number | null;
    /** @default null */
    include?: Array<"groups" | "roles" | "sessions"> | null;
    /** How hard to look. @default "fast" */
    mode?: "fast" | "thorough";
  }): Promise<unknown>;
  /** Type arrays, ref siblings and a string narrowed by oneOf consts. */
  set_threshold(args: {
    /** A number, a percentage string like "50%", or null to clear */
    value: number | string | null;
    unit?: "ms" | "s";
    window?: { label?: string } & { size: number };
  }): Promise<unknown>;
};
