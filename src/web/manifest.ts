/** What `web/build.ts` writes in `web/dist/manifest.json` and the service reads: the page's files, as served. */
export interface Manifest {
  readonly script: string;
  readonly style: string;
  readonly icon: string;
}
