declare const tools: {
  /**
   * Sends a message to a channel. Provide at least one of text, blocks or attachments.
   *
   * Messages are formatted with mrkdwn unless `mrkdwn` is false.
   */
  slack__chat_postMessage(args: {
    /**
     * Channel, private group, or IM channel to send message to. Can be an encoded ID, or a name.
     * @example "C1234567890"
     */
    channel: string;
    /** The formatted text of the message. Used as the fallback when blocks are present. */
    text?: string;
    /** A JSON-based array of structured blocks. @maxItems 50 */
    blocks?: Array<{
      type: "section";
      /** A text object. */
      text?: {
        type: "plain_text" | "mrkdwn";
        /** @maxLength 3000 */
        text: string;
        emoji?: boolean;
      };
      /** @maxLength 255 */
      block_id?: string;
      /** @maxItems 10 */
      fields?: Array<{
        type: "plain_text" | "mrkdwn";
        /** @maxLength 3000 */
        text: string;
        emoji?: boolean;
      }>;
    } | { type: "divider"; block_id?: string } | {
      type: "image";
      /** @format uri */
      image_url: string;
      alt_text: string;
      /** A text object. */
      title?: {
        type: "plain_text" | "mrkdwn";
        /** @maxLength 3000 */
        text: string;
        emoji?: boolean;
      };
    }>;
    /** Provide another message's ts value to make this message a reply. */
    thread_ts?: string;
    /** @default false */
    reply_broadcast?: boolean;
    unfurl_links?: boolean;
    /** @default true */
    mrkdwn?: boolean;
    metadata?: { event_type: string; event_payload: { [key: string]: unknown } };
  }): Promise<{ ok: boolean; channel?: string; ts?: string; error?: string }>;
};
