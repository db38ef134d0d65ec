/**
 * Every relative link of the project's Markdown files leads somewhere: the file or folder it names exists, and its
 * `#anchor` is a heading of that page (slugged as GitHub does) or an `<a id>` in it. Links with a scheme (https:,
 * mailto:) are not followed; links inside code (fenced blocks, `spans`) are not links.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Folders that hold no Markdown of the project's own. */
const SKIP = new Set(['node_modules', '.git', 'dist']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) || entry.name.startsWith('dist-') ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks, line by line (a fenced line becomes empty, so line numbers stay). */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && opener !== undefined) {
      fence = opener;
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence[0]!.repeat(fence.length)) && line.trim().replaceAll(fence[0]!, '') === '') {
        fence = undefined;
      }
      return '';
    }
    return line;
  });
}

/** A heading's anchor as GitHub makes it: the text as shown, lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const shown = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link shows its text
    .replace(/<[^>]+>/g, '') // tags show nothing
    .replace(/[`*]/g, ''); // code and emphasis marks show nothing
  return shown
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replaceAll(' ', '-');
}

/** Every anchor a page offers: its headings' slugs (a repeated one gains -1, -2, …) and its `<a id|name>`. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  }
  return found;
}

/** The targets of a page's links and reference definitions, with their line numbers. */
function links(text: string): { line: number; target: string }[] {
  return prose(text).flatMap((raw, i) => {
    const line = raw.replace(/(`+)[^`]*?\1/g, ''); // code spans hold no links
    const inline = [...line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
    const defined = [...(/^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(line)?.slice(1, 2) ?? [])];
    return [...inline, ...defined].map((target) => ({ line: i + 1, target: target.replace(/^<|>$/g, '') }));
  });
}

const files = markdownFiles(ROOT).sort();
const pages = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));

test('the Markdown files checked include the README, docs/ and bench/', () => {
  const names = files.map((file) => relative(ROOT, file).replaceAll('\\', '/'));
  for (const name of ['README.md', 'docs/configuration.md', 'bench/README.md']) assert.ok(names.includes(name), name);
});

test('GitHub heading anchors', () => {
  assert.equal(
    slug('Lists: pages, totals, sorting, ranges and search'),
    'lists-pages-totals-sorting-ranges-and-search',
  );
  assert.equal(slug('What `DATA_DIR` survives'), 'what-data_dir-survives');
  assert.equal(
    slug('Comparison — `npm run bench` (2026-11-22 21:16 UTC)'),
    'comparison--npm-run-bench-2026-11-22-2116-utc',
  );
  assert.equal(slug('See [the API](docs/api.md) *now*'), 'see-the-api-now');
  assert.deepEqual([...anchors('# A\n\n## A\n\n```\n# not a heading\n```\n<a id="x"></a>\n')], ['a', 'a-1', 'x']);
});

for (const [file, text] of pages) {
  const name = relative(ROOT, file).replaceAll('\\', '/');
  test(`every relative link of ${name} leads to a file and heading that exist`, () => {
    const broken: string[] = [];
    for (const { line, target } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not followed
      const [path = '', anchor] = target.split('#', 2);
      const to = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(to)) {
        broken.push(`${name}:${line}: ${target}: no such file`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(to).isDirectory() || !to.endsWith('.md')) {
        broken.push(`${name}:${line}: ${target}: an anchor into a file that is not Markdown`);
        continue;
      }
      const page = pages.get(to) ?? readFileSync(to, 'utf8');
      if (!anchors(page).has(decodeURIComponent(anchor))) broken.push(`${name}:${line}: ${target}: no such heading`);
    }
    assert.deepEqual(broken, []);
  });
}
