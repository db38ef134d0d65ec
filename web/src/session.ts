/**
 * Who the user is. The page says the service's `AUTH` mode (`<meta name="pm-auth">`), so the app asks the right
 * question before any request: with `none`, a username (kept in `localStorage`, sent as `X-Actor`); with `token`,
 * an API token (kept in `sessionStorage` only, sent as `Authorization: Bearer`), whose username and scopes
 * `GET /api/session` tells. A 401 signs the user out.
 */
import { signal } from '@preact/signals';
import { api, useCredentials } from './api.ts';
import type { Session } from './types.ts';

export type Scope = Session['scopes'][number];
export const authMode: Session['auth'] =
  document.querySelector('meta[name="pm-auth"]')?.getAttribute('content') === 'token' ? 'token' : 'none';

export interface User {
  readonly username: string;
  readonly scopes: readonly Scope[];
}

const NAME_KEY = 'pm-service.username';
const TOKEN_KEY = 'pm-service.token';
const ALL: readonly Scope[] = ['read', 'write', 'admin'];

export const user = signal<User | null>(null);
/** True while the user of the last visit is being restored (a token is checked with the service first). */
export const restoring = signal(true);
/** Why the user was signed out, shown on the sign-in form. */
export const signedOutBecause = signal<string | null>(null);

/** Whether the user's scopes cover `needed`: each scope includes the ones before it. */
export function can(needed: Scope): boolean {
  const scopes = user.value?.scopes ?? [];
  return scopes.some((s) => ALL.indexOf(s) >= ALL.indexOf(needed));
}

/** Why an action is not offered to this user, or null when it is. */
export function refusal(needed: Scope): string | null {
  return can(needed) ? null : `Your token does not have the ${needed} scope`;
}

export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(NAME_KEY);
  useCredentials({}, () => {});
  signedOutBecause.value = reason;
  user.value = null;
}

const expired = () => signOut('The service did not accept your token (revoked or expired). Sign in again.');

export function signInAs(username: string): void {
  const name = username.trim();
  localStorage.setItem(NAME_KEY, name);
  useCredentials({ actor: name }, () => {});
  signedOutBecause.value = null;
  user.value = { username: name, scopes: ALL };
}

/** Checks the token with the service; throws its error (a 401 for a bad token) and keeps nothing then. */
export async function signInWithToken(token: string): Promise<void> {
  const value = token.trim();
  useCredentials({ token: value }, () => {});
  try {
    const { data } = await api<{ data: Session }>('GET', '/api/session');
    if (!data.data.username) throw new Error('The service does not run with AUTH=token');
    sessionStorage.setItem(TOKEN_KEY, value);
    useCredentials({ token: value }, expired);
    signedOutBecause.value = null;
    user.value = { username: data.data.username, scopes: data.data.scopes };
  } catch (err) {
    useCredentials({}, () => {});
    throw err;
  }
}

/** The user of the last visit, if any: the name kept, or the token of this tab's session, checked again. */
export async function restore(): Promise<void> {
  try {
    if (authMode === 'none') {
      const name = localStorage.getItem(NAME_KEY);
      if (name) signInAs(name);
      return;
    }
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) await signInWithToken(token).catch(() => sessionStorage.removeItem(TOKEN_KEY));
  } finally {
    restoring.value = false;
  }
}
