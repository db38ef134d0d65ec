/** Instants and dates as the user reads them: in the browser's locale and time zone. */
const INSTANT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** An instant (`2026-11-22T10:00:00.000Z`), in local time. */
export const when = (iso: string) => INSTANT.format(new Date(iso));

/** A calendar date (`2026-11-22`, no time zone of its own), as that day. */
export const day = (date: string) => DAY.format(new Date(`${date}T00:00:00Z`));

/** A day as the API writes it (`YYYY-MM-DD`), in the browser's time zone. */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Today's date in the browser's time zone. */
export const today = () => localDate(new Date());

/** The day `days` days before today, in the browser's time zone. */
export function daysAgo(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() - days);
  return localDate(date);
}

/** Whether `text` is a calendar day as the API writes it. */
export const isDay = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text));
