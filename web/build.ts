/**
 * Builds the web app: `web/src/main.tsx` and what it imports, bundled by esbuild into one script and one style sheet
 * under `web/dist/`, each named by its content's hash and written beside its gzip and brotli forms, with
 * `manifest.json` naming them for the service (src/web/assets.ts). Run by `npm ci` (`prepare`), `npm start` and
 * `npm test`; nothing built is committed. `--watch` rebuilds on every change (`npm run dev`).
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import type { Manifest } from '../src/web/manifest.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DIST = join(HERE, 'dist');

const options: esbuild.BuildOptions = {
  entryPoints: [join(HERE, 'src/main.tsx'), join(HERE, 'src/icon.svg')],
  bundle: true,
  format: 'esm',
  // Browsers of 2024 on: the CSS uses light-dark() (Chrome 123, Firefox 120, Safari 17.5).
  target: ['chrome123', 'firefox120', 'safari17.5'],
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.svg': 'copy' },
  outdir: DIST,
  metafile: true,
  write: false,
  legalComments: 'none',
  logLevel: 'warning',
};

/**
 * Writes a file of the build whole or not at all, through a name of its own then a rename: builds run side by side
 * (`npm start` started twice at once runs two) and a service reading the folder never see one half written.
 */
function put(name: string, contents: Uint8Array | string): void {
  const partial = join(DIST, `.${name}.${process.pid}.partial`);
  writeFileSync(partial, contents);
  renameSync(partial, join(DIST, name));
}

/**
 * Writes what one build made, compressed forms and manifest included, in place of the last build's files: the
 * manifest last, then the files no build of these sources makes removed (never another build's partial ones).
 */
function write(result: esbuild.BuildResult<typeof options>): Manifest {
  mkdirSync(DIST, { recursive: true });
  const names = result.outputFiles!.map((file) => basename(file.path));
  for (const file of result.outputFiles!) {
    const name = basename(file.path);
    put(name, file.contents);
    put(`${name}.gz`, gzipSync(file.contents, { level: 9 }));
    put(`${name}.br`, brotliCompressSync(file.contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
  const find = (pattern: RegExp) => {
    const name = names.find((n) => pattern.test(n));
    if (!name) throw new Error(`the web build made no file like ${pattern}: ${names.join(', ')}`);
    return name;
  };
  const manifest: Manifest = {
    script: find(/^main-.*\.js$/),
    style: find(/^main-.*\.css$/),
    icon: find(/^icon-.*\.svg$/),
  };
  put('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
  const kept = new Set(['manifest.json', ...names.flatMap((name) => [name, `${name}.gz`, `${name}.br`])]);
  for (const name of readdirSync(DIST)) {
    if (!kept.has(name) && !name.startsWith('.')) rmSync(join(DIST, name), { recursive: true, force: true });
  }
  return manifest;
}

export async function buildWeb(): Promise<Manifest> {
  return write(await esbuild.build(options));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--watch')) {
    const context = await esbuild.context({
      ...options,
      plugins: [
        {
          name: 'write',
          setup: (build) => build.onEnd((result) => void (result.errors.length === 0 && write(result))),
        },
      ],
    });
    await context.watch();
  } else {
    const manifest = await buildWeb();
    const files = readdirSync(DIST).length;
    process.stdout.write(`web app built: ${manifest.script}, ${manifest.style} (${files} files in web/dist)\n`);
  }
}
