import { PgliteDriver } from '../../src/store/sql/pglite.ts';
import { storeContract } from './contract.ts';
import { sqlHarness } from './sql-harness.ts';

storeContract(
  'embedded (PGlite)',
  sqlHarness(() => PgliteDriver.open()),
);
