/**
 * The origins allowed to call the service from a browser: any. The CORS plugin and the answers written before
 * there is a request (malformed URLs, slow or oversized requests) say the same.
 */
export const CORS_ORIGIN = '*';

/**
 * The response headers a browser script may read: the request id, a record's version, the methods of a 405, and a
 * list's total and next page.
 */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'ETag', 'Allow', 'X-Total-Count', 'Link'];
