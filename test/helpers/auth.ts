import type { TestContext } from 'node:test';
import type { AppDeps } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { Api, testApp, type TestApp } from './app.ts';
import { Contract, type OpenApiDoc } from './contract.ts';

/** The admin token of the apps made here (at least 32 characters). */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijkl';
export const AS_ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface AuthApp extends TestApp {
  /** Issues a token as admin; answers its value and id. */
  issue(body: {
    username: string;
    scopes: string[];
    expiresAt?: string | null;
  }): Promise<{ token: string; id: string }>;
}

/**
 * A seeded test app with `AUTH=token` (and the settings given). Its answers are held to the document the app itself
 * publishes, which declares the 401, 403 and 429 answers of this mode.
 */
export async function authApp(t: TestContext, config: Partial<Config> = {}, deps: AppDeps = {}): Promise<AuthApp> {
  const test = await testApp(t, {
    ...deps,
    config: { logLevel: 'silent', auth: 'token', adminToken: ADMIN_TOKEN, ...config },
  });
  const res = await test.app.inject({ url: '/api/openapi.json', headers: AS_ADMIN });
  if (res.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${res.statusCode}`);
  const own = new Contract(res.json() as OpenApiDoc);
  const api = new Api(test.app, async () => own);
  return {
    ...test,
    api,
    async issue(body) {
      const created = await api.post('/api/tokens', body, AS_ADMIN);
      if (created.status !== 201) throw new Error(`POST /api/tokens answered ${created.status}: ${created.text}`);
      return { token: created.body.data.token as string, id: created.body.data.id as string };
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
