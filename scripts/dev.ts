/**
 * `npm run dev`: the web app built, then the service started; `tsx watch` runs this again whenever a source file
 * of the service or of the web app changes.
 */
import { buildWeb } from '../web/build.ts';

await buildWeb();
await import('../src/server.ts');
