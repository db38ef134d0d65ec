import { PgDriver } from '../../src/store/sql/pg.ts';
import { storeContract } from './contract.ts';
import { sqlHarness, testServer } from './sql-harness.ts';

const found = await testServer();
const server = 'server' in found ? found.server : undefined;

storeContract(
  'PostgreSQL',
  sqlHarness(
    async () => new PgDriver({ connectionString: await server!.database() }),
    async () => server!.dropAll(),
  ),
  'skip' in found ? found.skip : undefined,
);
