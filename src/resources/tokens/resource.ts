import { kindNames } from '../../core/names.ts';
import { TokenList, Token } from '../../model/token.ts';
import { crudResource } from '../resource.ts';
import { TokenCreate, TokenQuery, TokenWithValue } from './schema.ts';

const names = kindNames('token');

/** Examples for the document only: no token is seeded. */
const SAMPLES: Token[] = [
  {
    id: 'tok_001',
    username: 'ci-bot',
    scopes: ['write'],
    description: 'The CI pipeline: creates and closes tasks',
    expiresAt: '2027-06-30T00:00:00.000Z',
    createdAt: '2026-11-22T10:00:00.000Z',
    lastUsedAt: '2026-11-22T10:05:00.000Z',
  },
  {
    id: 'tok_002',
    username: 'dashboard',
    scopes: ['read'],
    description: 'The wall dashboard',
    expiresAt: null,
    createdAt: '2026-11-22T10:01:00.000Z',
    lastUsedAt: null,
  },
];

export const tokens = crudResource(
  { names, createSchema: TokenCreate },
  {
    description:
      'API tokens (`AUTH=token`): each acts for a username with scopes. The value is shown once, in the answer to ' +
      'the create; only its SHA-256 hash is kept. `DELETE` revokes a token at once. With `AUTH=token`, these ' +
      'operations need the `admin` scope.',
    samples: SAMPLES,
    schemas: { record: Token, query: TokenQuery },
    list: TokenList,
    components: [
      {
        name: 'TokenWithValue',
        schema: TokenWithValue,
        samples: SAMPLES.map((t) => ({ ...t, token: 'pmt_Q2x8kLm3Nv7Rt1Yw5Zb9Cd4Fg6Hj0Kp2Sx8Tu3Vw' })),
      },
    ],
    createResponse: TokenWithValue,
    // Tokens are credentials: only an admin lists, reads, issues or revokes them.
    scopes: { read: 'admin', write: 'admin' },
  },
);
