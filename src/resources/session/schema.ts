import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../schemas/common.ts';
import { SCOPES } from '../../model/token.ts';

/** Who the caller is, as the service sees it: what a client needs to show its user what they may do. */
export const Session = Type.Object({
  auth: StringEnum(['none', 'token'], {
    description: '`token` when the service runs with `AUTH=token`; `none` when anyone may call it',
  }),
  username: Nullable(
    Type.String({ description: "The token's username; null without `AUTH=token` (changes are then by `X-Actor`)" }),
  ),
  scopes: Type.Array(StringEnum(SCOPES), {
    description: "The token's scopes; every scope without `AUTH=token`",
  }),
});
export type Session = Static<typeof Session>;
