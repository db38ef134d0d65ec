/**
 * The origins allowed to call the service from a browser: any. The CORS plugin and the answers written before
 * there is a request (malformed URLs, slow or oversized requests) say the same.
 */
export const CORS_ORIGIN = '*';
