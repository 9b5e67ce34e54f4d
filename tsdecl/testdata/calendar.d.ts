declare const tools: {
  /** Create an event in a calendar. */
  mcp__calendar__create_event(args: {
    /** Calendar identifier. Use "primary" for the user's primary calendar. @default "primary" */
    calendarId?: string;
    summary: string;
    location?: string;
    /** A time (dateTime) or an all-day date (date). */
    start: {
      /** @format date */
      date?: string;
      /** @format date-time */
      dateTime?: string;
      /** IANA time zone, e.g. Europe/Zurich */
      timeZone?: string;
    };
    /** A time (dateTime) or an all-day date (date). */
    end: {
      /** @format date */
      date?: string;
      /** @format date-time */
      dateTime?: string;
      /** IANA time zone, e.g. Europe/Zurich */
      timeZone?: string;
    };
    attendees?: Array<{
      /** @format email */
      email: string;
      /** @default false */
      optional?: boolean;
      responseStatus?: "needsAction" | "declined" | "tentative" | "accepted";
    }>;
    /** How the event repeats. */
    recurrence?: {
      frequency: "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY";
      /** Repeat every N periods. @minimum 1 @default 1 */
      interval?: number;
      /** Days, e.g. MO or 1FR (first Friday). */
      byDay?: string[];
      byMonthDay?: number[];
      /** When the recurrence stops; omit to repeat forever. */
      end?: {
        /** @minimum 1 */
        count: number;
      } | {
        /** A time (dateTime) or an all-day date (date). */
        until: {
          /** @format date */
          date?: string;
          /** @format date-time */
          dateTime?: string;
          /** IANA time zone, e.g. Europe/Zurich */
          timeZone?: string;
        };
      };
      /** Dates on which the event does not occur. */
      exceptions?: string[];
    };
    reminders?: {
      useDefault?: boolean;
      /** @maxItems 5 */
      overrides?: Array<{
        method: "email" | "popup";
        /** @minimum 0 @maximum 40320 */
        minutes: number;
      }>;
    };
    /** @default "default" */
    visibility?: "default" | "public" | "private" | "confidential";
    conferenceData?: { [key: string]: unknown } | null;
  }): Promise<{ id: string; htmlLink?: string; status?: "confirmed" }>;
};
