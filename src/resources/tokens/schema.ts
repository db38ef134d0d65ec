import { Type, type Static } from 'typebox';
import { Body, Description, Id, Nullable, Query, StringEnum, Timestamp, Username } from '../../schemas/common.ts';

/**
 * What a token may do, each including the ones before it: `read` (GET and HEAD), `write` (read, and every change
 * but those of webhooks and tokens), `admin` (everything).
 */
export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

const Scopes = Type.Array(StringEnum(SCOPES), {
  minItems: 1,
  maxItems: 10,
  description:
    '`read`: GET and HEAD; `write`: read, and every change but those of webhooks and tokens; `admin`: everything. ' +
    'Duplicates are removed.',
  examples: [['write']],
});

const publicFields = {
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
};

/** A token as every answer but the create's shows it: never its value, never its hash. */
export const Token = Type.Object(publicFields);
export type Token = Static<typeof Token>;

/** The answer to a create, the one place the value appears. */
export const TokenWithValue = Type.Object({
  ...publicFields,
  token: Type.String({
    description: 'The token: `pmt_` + 40 alphanumerics. Shown only here; the service keeps only its SHA-256 hash',
    examples: ['pmt_Q2x8kLm3Nv7Rt1Yw5Zb9Cd4Fg6Hj0Kp2Sx8Tu3Vw'],
  }),
});
export type TokenWithValue = Static<typeof TokenWithValue>;

/** A token as stored: the SHA-256 of its value (hex), never the value. */
export type TokenRecord = Token & { readonly hash: string };

export const TokenCreate = Body({
  username: Username,
  scopes: Scopes,
  description: Type.Optional({ ...Description, default: '' }),
  expiresAt: Type.Optional({
    ...Nullable(Timestamp),
    default: null,
    description: 'When the token stops working (in the future); `null` or absent: never',
  }),
});
export type TokenCreate = Static<typeof TokenCreate>;

export const TokenQuery = Query({ username: Type.Optional(Type.String()) });
export type TokenQuery = Static<typeof TokenQuery>;
