import { hash, timingSafeEqual } from 'node:crypto';
import { allOf, exactFilter, type ServiceDeps } from '../../core/resource-service.ts';
import type { Conditions, ListQuery, Page } from '../../model/list.ts';
import { iso } from '../../model/time.ts';
import { randomAlphanumeric } from '../../model/ids.ts';
import { notFound, validationError } from '../../errors.ts';
import type { Principal } from '../../http/auth.ts';
import type { TokenCreate, TokenWithValue } from './schema.ts';
import type { Token, TokenRecord } from '../../model/token.ts';

/** `lastUsedAt` is written at most this often per token, so a busy token does not make a write of every request. */
export const LAST_USED_EVERY_MS = 1_000;

/** SHA-256 of a token's value, hex: what the store keeps and looks tokens up by. */
export const tokenHash = (value: string): string => hash('sha256', value, 'hex');

/** A token's value: `pmt_` + 40 alphanumerics from a cryptographic source (about 238 bits). */
export const newTokenValue = () => `pmt_${randomAlphanumeric(40)}`;

/** Two SHA-256 hashes (hex) compared in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}

/** A token as answers show it: without its hash. */
function publicView({ hash: _hash, ...token }: TokenRecord): Token {
  return token;
}

/**
 * API tokens: issued with their value shown once, listed without it, revoked by deleting them. Only the SHA-256
 * of a value is stored. Tokens are credentials, not project records: their changes are not domain events (no
 * activity entry, webhook or stream event carries them).
 */
export class TokenService {
  /** When this instance last wrote each token's `lastUsedAt` (epoch ms), so concurrent uses write it once. */
  private readonly touched = new Map<string, number>();
  /** Told the id of each token this instance revokes, once revoked (the event stream ends its streams). */
  private readonly revokedListeners: ((id: string) => void)[] = [];

  constructor(private readonly deps: Pick<ServiceDeps<'tokens'>, 'store' | 'clock' | 'ids'>) {}

  /** A page of the list (the lists' parameters, as every collection takes them), without the hashes. */
  async page(conditions: Conditions, query: ListQuery<TokenRecord> = {}): Promise<Page<Token>> {
    const filter = allOf(exactFilter<TokenRecord>(conditions), query.filter);
    const page = await this.deps.store.tokens.query({ ...query, filter });
    return { ...page, items: page.items.map(publicView) };
  }

  async get(id: string): Promise<Token> {
    const record = await this.deps.store.tokens.get(id);
    if (!record) throw notFound('Token', id);
    return publicView(record);
  }

  /** Issues a token: the answer is the one place its value appears. */
  async create(input: TokenCreate): Promise<TokenWithValue> {
    const now = this.deps.clock.now();
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt !== null && Date.parse(expiresAt) <= now.getTime()) {
      throw validationError([{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    const value = newTokenValue();
    const record: TokenRecord = {
      id: this.deps.ids('tok'),
      username: input.username.trim(),
      scopes: [...new Set(input.scopes)],
      description: input.description ?? '',
      expiresAt: expiresAt === null ? null : iso(new Date(expiresAt)),
      createdAt: iso(now),
      lastUsedAt: null,
      hash: tokenHash(value),
    };
    await this.deps.store.transaction((tx) => tx.tokens.insert(record));
    return { ...publicView(record), token: value };
  }

  update(): Promise<never> {
    return Promise.reject(new Error('tokens have no update'));
  }

  /** Revokes a token: from the moment this answers, it is refused. */
  async remove(id: string): Promise<Token> {
    const record = await this.deps.store.transaction(async (tx) => {
      const found = await tx.tokens.get(id);
      if (!found) throw notFound('Token', id);
      await tx.tokens.delete(id);
      return found;
    });
    this.touched.delete(id);
    for (const listener of this.revokedListeners) listener(id);
    return publicView(record);
  }

  /** Calls `listener` with the id of each token revoked through this instance, once the revocation is stored. */
  onRevoked(listener: (id: string) => void): void {
    this.revokedListeners.push(listener);
  }

  /**
   * Whether the token of id `id` still authenticates: not revoked (on any instance) and not expired. For what lasts
   * beyond the request that was authenticated, such as an event stream. Rejects when the store cannot tell.
   */
  async holds(id: string): Promise<boolean> {
    const record = await this.deps.store.tokens.get(id);
    const now = this.deps.clock.now().getTime();
    return record !== undefined && (record.expiresAt === null || Date.parse(record.expiresAt) > now);
  }

  /**
   * Who `value` is, when it is a token that exists and has not expired; its `lastUsedAt` then becomes now (written
   * at most once a second per token: it lags the last use by under a second). Undefined otherwise.
   */
  async authenticate(value: string): Promise<Principal | undefined> {
    const hash = tokenHash(value);
    const [record] = await this.deps.store.tokens.list({ hash });
    // The lookup is by hash, not by the secret; the comparison of what was found is constant-time anyway.
    if (!record || !sameHash(record.hash, hash)) return undefined;
    const now = this.deps.clock.now().getTime();
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return undefined;
    await this.touch(record, now);
    return { username: record.username, scopes: record.scopes, tokenId: record.id };
  }

  /** Writes `lastUsedAt`, unless it was written less than a second ago. A failed write never fails the request. */
  private async touch(record: TokenRecord, now: number): Promise<void> {
    const last = Math.max(
      this.touched.get(record.id) ?? -Infinity,
      record.lastUsedAt === null ? -Infinity : Date.parse(record.lastUsedAt),
    );
    if (now - last < LAST_USED_EVERY_MS) return;
    if (this.touched.size >= 10_000) this.touched.clear();
    this.touched.set(record.id, now);
    const at = iso(new Date(now));
    try {
      await this.deps.store.transaction(async (tx) => {
        const current = await tx.tokens.get(record.id);
        if (current && (current.lastUsedAt === null || current.lastUsedAt < at)) {
          await tx.tokens.replace({ ...current, lastUsedAt: at });
        }
      });
    } catch {
      this.touched.delete(record.id); // tried again at the next use
    }
  }
}
