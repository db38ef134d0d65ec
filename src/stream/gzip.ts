import { constants, crc32, deflateRawSync } from 'node:zlib';
import { crc32Combine, crc32Shift } from './crc32-combine.ts';

/**
 * A gzip stream made of pieces compressed once and sent to many clients. Each piece is raw deflate from a fresh
 * compressor, flushed with Z_SYNC_FLUSH: it ends on a byte boundary (an empty stored block), never marks the final
 * block, and refers to nothing before itself, so any sequence of pieces is one valid deflate stream. A client's
 * stream is the gzip header, its pieces, then at a normal end an empty final block and the trailer (the CRC-32 and
 * length of everything it was sent uncompressed), which each client keeps from the pieces' own CRCs without reading
 * its bytes again (crc32-combine.ts).
 */

/** gzip's member header: deflate, no flags, no time, no extra flags, unknown system. */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/**
 * Level 1 (fastest): the pieces are a flush's events, similar to one another, so it compresses them as small as
 * level 6 does, in less time on larger pieces.
 */
const LEVEL = 1;

/** A piece of a gzip stream, and what a client's trailer needs of it. */
export interface Deflated {
  readonly bytes: Buffer;
  /** CRC-32 of the uncompressed text. */
  readonly crc: number;
  /** Length of the uncompressed text, in bytes. */
  readonly length: number;
  /** `crc32Shift(length)`. */
  readonly shift: number;
}

export function deflate(text: Buffer): Deflated {
  return {
    bytes: deflateRawSync(text, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH }),
    crc: crc32(text),
    length: text.length,
    shift: crc32Shift(text.length),
  };
}

/**
 * Text for several clients: as it is, and compressed once, when a gzip client first needs it; each of the two also
 * framed once as a chunk of a chunked HTTP body (`chunk`), the bytes written to each client's connection.
 */
export class Payload {
  private compressed: Deflated | undefined;
  private textChunk: Buffer | undefined;
  private deflatedChunk: Buffer | undefined;

  constructor(readonly text: Buffer) {}

  get deflated(): Deflated {
    return (this.compressed ??= deflate(this.text));
  }

  /** `text`, or with `gzip` the deflated bytes, as one chunk of a chunked body (never empty: see `chunk`). */
  chunk(gzip: boolean): Buffer {
    if (gzip) return (this.deflatedChunk ??= chunk(this.deflated.bytes));
    return (this.textChunk ??= chunk(this.text));
  }
}

const CRLF = Buffer.from('\r\n');

/**
 * `bytes` as one chunk of an HTTP/1.1 chunked body, as Node's `ServerResponse.write` frames it: the length in hex,
 * CRLF, the bytes, CRLF. Not for empty bytes (a chunk of length 0 ends the body).
 */
export function chunk(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, CRLF]);
}

/** An empty final block (fixed Huffman: BFINAL 1, BTYPE 01, end of block). */
const FINAL_BLOCK = [0x03, 0x00];

/** One client's gzip stream after its header: the CRC-32 and length (mod 2^32) of what it has been sent. */
export class GzipTrail {
  private crc = 0;
  private length = 0;

  /** The piece's bytes, to write, counted in the trailer. */
  add(piece: Deflated): Buffer {
    this.crc = crc32Combine(this.crc, piece.crc, piece.shift);
    this.length = (this.length + piece.length) % 2 ** 32;
    return piece.bytes;
  }

  /** What completes the stream: the final block and the trailer. */
  end(): Buffer {
    const end = Buffer.alloc(10);
    end.set(FINAL_BLOCK);
    end.writeUInt32LE(this.crc, 2);
    end.writeUInt32LE(this.length, 6);
    return end;
  }
}
