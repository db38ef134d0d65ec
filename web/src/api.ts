/**
 * The app's one way to the service: every call goes through `api`, which adds who the user is (`X-Actor`, or the
 * token as `Authorization: Bearer`), reads the error shape into an `ApiError`, and tells the connection state
 * (`connection`) when the service is unreachable or answers 503.
 */
import type { ErrorBody } from './types.ts';
import { signal } from '@preact/signals';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly { field: string; message: string }[] = [],
  ) {
    super(message);
  }

  /** The message with the fields it names, as a person reads it. */
  get text(): string {
    if (this.details.length === 0) return this.message;
    return `${this.message}: ${this.details.map((d) => `${d.field} ${d.message}`).join('; ')}`;
  }
}

/** How the service is reached now: shown in the header while it is not `online`. */
export type Connection = 'online' | 'offline' | 'unavailable';
export const connection = signal<Connection>('online');

/** Who the user is: set by the session (session.ts), read for every request. */
export interface Credentials {
  readonly actor?: string;
  readonly token?: string;
}
let credentials: Credentials = {};
let onUnauthenticated: () => void = () => {};

export function useCredentials(next: Credentials, unauthenticated: () => void): void {
  credentials = next;
  onUnauthenticated = unauthenticated;
}

/** The token as the event stream takes it (`access_token`), when there is one. */
export const streamToken = () => credentials.token;

export interface Answer<T> {
  readonly data: T;
  readonly etag: string | null;
  readonly headers: Headers;
}

interface Options {
  readonly body?: unknown;
  /** The ETag the change is based on: a `412` then means someone else changed the record. */
  readonly ifMatch?: string | null;
  readonly signal?: AbortSignal;
}

const RETRY_MS = 2_000;

/** One call; the `data` of the answer. Network failures and 503 are retried for reads until the service answers. */
export async function api<T>(method: string, path: string, options: Options = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  else if (credentials.actor && method !== 'GET') headers['x-actor'] = credentials.actor;
  const init: RequestInit = {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  };
  for (;;) {
    let response: Response;
    try {
      response = await fetch(path, init);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      connection.value = 'offline';
      if (method !== 'GET') throw new ApiError(0, 'OFFLINE', 'The service cannot be reached; try again');
      await wait(RETRY_MS, options.signal);
      continue;
    }
    if (response.status === 503) {
      connection.value = 'unavailable';
      if (method === 'GET') {
        await wait(RETRY_MS, options.signal);
        continue;
      }
    } else connection.value = 'online';
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not the service's answer (a proxy's error page, say): said by its status alone.
      throw new ApiError(response.status, 'HTTP_ERROR', `The service answered ${response.status} without JSON`);
    }
    if (!response.ok) {
      const error = (json as ErrorBody | undefined)?.error;
      if (response.status === 401) onUnauthenticated();
      throw new ApiError(
        response.status,
        error?.code ?? 'HTTP_ERROR',
        error?.message ?? `The service answered ${response.status}`,
        error?.details ?? [],
      );
    }
    return { data: json as T, etag: response.headers.get('etag'), headers: response.headers };
  }
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });
}

/** A query string of the parameters that are set (`undefined` and `''` are left out). */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(name, `${value}`);
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const get = <T>(path: string, signal?: AbortSignal) => api<{ data: T }>('GET', path, { signal });

/** Every page of a list, `limit` at a time, each handed to `onPage` as it comes. */
export async function* pages<T>(
  path: string,
  params: Record<string, string | undefined>,
  limit = 500,
  signal?: AbortSignal,
) {
  let cursor: string | undefined;
  do {
    const answer = await api<{ data: T[]; nextCursor: string | null }>(
      'GET',
      `${path}${query({ ...params, limit, cursor })}`,
      { signal },
    );
    yield { records: answer.data.data, total: Number(answer.headers.get('x-total-count') ?? answer.data.data.length) };
    cursor = answer.data.nextCursor ?? undefined;
  } while (cursor);
}
