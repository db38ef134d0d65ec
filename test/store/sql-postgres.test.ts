import { PgDriver } from '../../src/store/sql/pg.ts';
import { testServer } from './sql-harness.ts';
import { sqlSuite } from './sql.ts';

const found = await testServer();
const server = 'server' in found ? found.server : undefined;

sqlSuite(
  'PostgreSQL',
  {
    shared: true,
    async fresh() {
      const databaseUrl = await server!.database();
      return {
        options: async () => ({ databaseUrl }),
        driver: async () => new PgDriver({ connectionString: databaseUrl }),
      };
    },
    cleanUp: async () => server?.dropAll(),
  },
  'skip' in found ? found.skip : undefined,
);
