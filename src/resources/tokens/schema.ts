import { Type, type Static } from 'typebox';
import { Body, Description, Nullable, Query, Timestamp, Username } from '../../schemas/common.ts';
import { Scopes, Token } from '../../model/token.ts';

/** The answer to a create, the one place the value appears. */
export const TokenWithValue = Type.Object({
  ...Token.properties,
  token: Type.String({
    description: 'The token: `pmt_` + 40 alphanumerics. Shown only here; the service keeps only its SHA-256 hash',
    examples: ['pmt_Q2x8kLm3Nv7Rt1Yw5Zb9Cd4Fg6Hj0Kp2Sx8Tu3Vw'],
  }),
});
export type TokenWithValue = Static<typeof TokenWithValue>;

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
