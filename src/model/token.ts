import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from './schema.ts';

/**
 * What a token may do, each including the ones before it: `read` (GET and HEAD), `write` (read, and every change
 * but those of webhooks and tokens), `admin` (everything).
 */
export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const Scopes = Type.Array(StringEnum(SCOPES), {
  minItems: 1,
  maxItems: 10,
  description:
    '`read`: GET and HEAD; `write`: read, and every change but those of webhooks and tokens; `admin`: everything. ' +
    'Duplicates are removed.',
  examples: [['write']],
});

/** A token as every answer but the create's shows it: never its value, never its hash. */
export const Token = Type.Object({
  id: Id('tok'),
  username: Type.String({ description: 'Who the token acts for: the actor of every change it makes' }),
  scopes: Scopes,
  description: Type.String(),
  expiresAt: Nullable({ ...Timestamp, description: 'When the token stops working; `null`: never' }),
  createdAt: Timestamp,
  lastUsedAt: Nullable({
    ...Timestamp,
    description: 'When the token was last used (written at most once a second per token); `null`: never',
  }),
});
export type Token = Static<typeof Token>;

/** A token as stored: the SHA-256 of its value (hex), never the value. */
export type TokenRecord = Token & { readonly hash: string };

/** What a list of tokens offers beyond its exact filters: `sort`, the range operators, `q`. */
export const TokenList: ListSpec = {
  sort: { username: null, createdAt: null },
  ranges: { createdAt: 'instant' },
  search: ['username', 'description'],
};
