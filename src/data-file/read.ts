import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { none } from 'stream-chain/defs.js';
import { jsonParser } from 'stream-json/parser.js';
import Assembler from 'stream-json/assembler.js';
import { verifyFile } from 'stream-json/file/verifier.js';
import { COLLECTIONS, FORMAT, HEADER_KEYS, isCollection, type CollectionName } from './format.ts';

/** One record of a data file, where it stands: `tasks[3]` is `{ collection: 'tasks', index: 3 }`. */
export interface FileRecord {
  readonly collection: CollectionName;
  readonly index: number;
  /** The record as the file has it: not checked (checkDataFile checks it). */
  readonly record: unknown;
}

/**
 * Something wrong with the file as a whole or with one place of it: `place` is a path into the file
 * (`tasks[3].projectId`, `format`) or empty for the file itself (not JSON, empty, unreadable).
 */
export interface Problem {
  readonly place: string;
  readonly message: string;
  /** The rest of the file cannot be read (not JSON, empty, unreadable, not an object). */
  readonly fatal?: boolean;
}

/** A data file that cannot be read, thrown when no `onProblem` is given: the problem in words, no stack to show. */
export class DataFileError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.place ? `${problem.place}: ${problem.message}` : problem.message);
    this.name = 'DataFileError';
  }
}

export interface ReadOptions {
  /** Told each problem of the file's frame (not of its records); without it, the first one is thrown. */
  onProblem?: (problem: Problem) => void;
  /** Told each header field (`format`, `exportedAt`, `secrets`) as the file has it. */
  onHeader?: (key: (typeof HEADER_KEYS)[number], value: unknown) => void;
  /** Told each collection as its array begins, in file order (a collection named twice, twice). */
  onCollection?: (collection: CollectionName) => void;
  /** Only the records of these collections are built; the others are skipped as they are read. */
  only?: ReadonlySet<CollectionName>;
}

type Token = { name: string; value?: unknown };

export const NOT_AN_ARRAY = 'must be an array of records';

/**
 * The records of a data file in file order, read as a stream: a file of a million tasks is never held whole, only
 * one record at a time. What is wrong with the frame (not JSON, an empty file, not an object, an unknown top-level
 * key, a wrong `format`) goes to `onProblem`; the records themselves are yielded unchecked.
 */
export async function* readDataFile(path: string, options: ReadOptions = {}): AsyncGenerator<FileRecord> {
  const report =
    options.onProblem ??
    ((p: Problem) => {
      throw new DataFileError(p);
    });
  const cannot = await unreadable(path);
  if (cannot) return report(cannot);
  const tokens = new Tokens(tokenBatches(path));
  const next = () => tokens.next();
  let first: Token | undefined;
  try {
    first = await next();
    if (first === undefined) return report({ place: '', message: 'is empty', fatal: true });
    if (first.name !== 'startObject') {
      await drain(next);
      return report({
        place: '',
        message: `must be a JSON object: { "format": "${FORMAT}", "tasks": […], … }`,
        fatal: true,
      });
    }
    let format = false;
    for (let token = await next(); token && token.name !== 'endObject'; token = await next()) {
      const key = String(token.value);
      const start = (await next())!;
      if ((HEADER_KEYS as readonly string[]).includes(key)) {
        const value = await assemble(start, next);
        options.onHeader?.(key as (typeof HEADER_KEYS)[number], value);
        if (key === 'format') format = true;
        if (key === 'format' && value !== FORMAT) report({ place: 'format', message: `must be "${FORMAT}"` });
      } else if (!isCollection(key)) {
        await skip(start, next);
        report({ place: key, message: `is not a collection; the collections are ${COLLECTIONS.join(', ')}` });
      } else if (start.name !== 'startArray') {
        await skip(start, next);
        report({ place: key, message: NOT_AN_ARRAY });
      } else {
        options.onCollection?.(key);
        const wanted = options.only === undefined || options.only.has(key);
        let index = 0;
        for (let item = await next(); item && item.name !== 'endArray'; item = await next(), index++) {
          if (wanted) yield { collection: key, index, record: await assemble(item, next) };
          else await skip(item, next);
        }
      }
    }
    await drain(next);
    if (!format) report({ place: 'format', message: `is required: "format": "${FORMAT}"` });
  } catch (error) {
    if (error instanceof DataFileError) throw error;
    await tokens.close();
    report(await syntaxProblem(path, error, first === undefined));
  } finally {
    // Also when the reader stops early (a loader that failed): the file is closed at once, not when collected.
    await tokens.close();
  }
}

/**
 * The file's JSON tokens, a block of the file's at a time: the tokenizer is called on each block as it is read (no
 * stream between it and the reader, which would cost an event per token). Values come packed (`stringValue`, …).
 */
async function* tokenBatches(path: string): AsyncGenerator<readonly Token[]> {
  const tokenize = jsonParser({ streamValues: false }) as (chunk: string | typeof none) => unknown;
  const tokensOf = (out: unknown): readonly Token[] => (out === none ? [] : (out as { values: Token[] }).values);
  let first = true;
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    // A byte-order mark is no part of the JSON (editors on Windows may write one).
    const text = first && (chunk as string).startsWith('\uFEFF') ? (chunk as string).slice(1) : (chunk as string);
    first = false;
    yield tokensOf(tokenize(text));
  }
  yield tokensOf(tokenize(none));
}

/** Where the JSON goes wrong, found again by the verifier (the parser does not say where). */
async function syntaxProblem(path: string, error: unknown, nothingRead: boolean): Promise<Problem> {
  try {
    await verifyFile(path);
  } catch (found) {
    const { line, pos, offset } = found as { line?: number; pos?: number; offset?: number };
    const atEnd = offset === (await stat(path)).size;
    if (nothingRead && atEnd) return { place: '', message: 'is empty', fatal: true };
    const expected = String((found as Error).message ?? found).replace(/^.*?Verifier (has|cannot parse input:) /, '');
    const why = atEnd ? `the file ends too soon (${expected})` : expected;
    if (line !== undefined) return { place: `line ${line}, column ${pos}`, message: `not JSON: ${why}`, fatal: true };
  }
  return { place: '', message: `cannot be read: ${(error as Error).message ?? String(error)}`, fatal: true };
}

type Next = () => Token | undefined | Promise<Token | undefined>;

/** The value that begins with `start`, built from its tokens. */
async function assemble(start: Token, next: Next): Promise<unknown> {
  const asm = new Assembler();
  let token: Token | undefined = start;
  for (;;) {
    (asm.consume as (t: Token) => void)(token);
    if (asm.done) return asm.current;
    const got = next();
    token = got instanceof Promise ? await got : got;
    if (token === undefined) throw new Error('the file ends inside a value');
  }
}

/** Reads past the value that begins with `start`. */
async function skip(start: Token, next: Next): Promise<void> {
  let depth = 0;
  for (let token: Token | undefined = start; token;) {
    if (token.name === 'startObject' || token.name === 'startArray') depth++;
    else if (token.name === 'endObject' || token.name === 'endArray') depth--;
    if (depth === 0) return;
    const got = next();
    token = got instanceof Promise ? await got : got;
  }
}

/** Reads to the end (a parse error after the value still shows). */
async function drain(next: Next): Promise<void> {
  while ((await next()) !== undefined);
}

/**
 * The file's tokens one at a time, read a block at a time: `next` answers at once while the block lasts, and a
 * promise only when it must read the next one (a million records make tens of millions of tokens: no await each).
 */
class Tokens {
  private batch: readonly Token[] = [];
  private at = 0;
  constructor(private readonly batches: AsyncGenerator<readonly Token[]>) {}

  next(): Token | undefined | Promise<Token | undefined> {
    return this.at < this.batch.length ? this.batch[this.at++] : this.refill();
  }

  private async refill(): Promise<Token | undefined> {
    while (this.at === this.batch.length) {
      const step = await this.batches.next();
      if (step.done) return undefined;
      [this.batch, this.at] = [step.value, 0];
    }
    return this.batch[this.at++];
  }

  async close(): Promise<void> {
    await this.batches.return(undefined);
  }
}
/** Why the file cannot be read, in words; undefined when it can. */
export async function unreadable(path: string): Promise<Problem | undefined> {
  try {
    const handle = await open(path, 'r');
    const isFile = (await handle.stat()).isFile();
    await handle.close();
    return isFile ? undefined : { place: '', message: 'cannot be read: it is not a file', fatal: true };
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is not a file'
            : (code ?? message);
    return { place: '', message: `cannot be read: ${why}`, fatal: true };
  }
}
