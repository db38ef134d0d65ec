/** Instants and dates as the user reads them: in the browser's locale and time zone. */
const INSTANT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** An instant (`2026-11-22T10:00:00.000Z`), in local time. */
export const when = (iso: string) => INSTANT.format(new Date(iso));

/** A calendar date (`2026-11-22`, no time zone of its own), as that day. */
export const day = (date: string) => DAY.format(new Date(`${date}T00:00:00Z`));

/** Today's date in the browser's time zone, `YYYY-MM-DD`. */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
