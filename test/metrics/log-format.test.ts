import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { defaultLogFormat, loggerOptions, stdoutPerTurn } from '../../src/http/logging.ts';

/** A stream that keeps what is written to it. */
function collector() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

test('LOG_FORMAT: json or pretty, unset by default; anything else refused', () => {
  assert.equal(loadConfig({}, []).logFormat, undefined);
  assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }, []).logFormat, 'pretty');
  assert.equal(loadConfig({}, ['--log-format', 'json']).logFormat, 'json');
  assert.throws(
    () => loadConfig({ LOG_FORMAT: 'xml' }, []),
    /LOG_FORMAT \(--log-format\): must be one of json, pretty/,
  );
});

test('unset: pretty at a terminal, JSON anywhere else', () => {
  assert.equal(defaultLogFormat({ isTTY: true }), 'pretty');
  assert.equal(defaultLogFormat({ isTTY: false }), 'json');
  assert.equal(defaultLogFormat({}), 'json');
});

test('json: the JSON lines on stdout, written per turn', () => {
  assert.equal(loggerOptions('info', 'json').stream, stdoutPerTurn());
});

test('pretty: one readable line per entry, no JSON, the credentials still redacted', () => {
  const out = collector();
  const { stream, ...options } = loggerOptions('info', 'pretty', out.stream);
  const log = pino(options, stream);
  log.info(
    { reqId: 'req-1', statusCode: 200, req: { headers: { authorization: 'Bearer secret' } } },
    'request completed',
  );
  const text = out.text();
  assert.match(text, /INFO.*request completed/);
  assert.match(text, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed \{"reqId":"req-1"/);
  assert.equal(text.trim().split('\n').length, 1, 'one line');
  assert.doesNotMatch(text, /^\{/m, 'no JSON line');
  assert.doesNotMatch(text, /secret/);
  assert.equal(text.trim().split('\n')[0]!.includes('\u001b['), false, 'no colours off a terminal');
});
