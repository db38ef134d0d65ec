/**
 * Whether every word of `q` occurs in `text`, ignoring case: the API's `q` rule (`GET /api/tasks?q=`), applied to
 * what the board already holds.
 */
export function matchesWords(text: string, q: string): boolean {
  const haystack = text.toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .every((word) => word === '' || haystack.includes(word));
}
