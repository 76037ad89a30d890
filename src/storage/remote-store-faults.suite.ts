/**
 * Faults of a remote object store, through real sockets (STYLE.md "Shared suites"): a store where
 * nothing listens, and one that accepts connections and never answers. Each provider's test file
 * runs it with its scheme and a config pointing at a given endpoint.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { refusedEndpoint, startSilentServer } from '../../test/support/object-servers.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { OpendalObjectStore } from './opendal-object-store.js';

export interface RemoteFaultOptions {
  readonly scheme: string;
  readonly description: string;
  /**
   * The config of a store at `endpoint` (`http://127.0.0.1:<port>`; the provider may rewrite it,
   * as OSS does), with its real secrets.
   */
  config(endpoint: string): Record<string, string>;
  /** Values that must never appear in a message or a cause: secret keys, SAS tokens, signatures. */
  readonly secrets: readonly string[];
}

/** Every text an error carries, down its cause chain: messages, stacks, own properties. */
export function errorTexts(err: unknown): string[] {
  const out: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 10; depth++) {
    out.push(String(e));
    if (e instanceof Error) {
      out.push(e.message, e.stack ?? '');
      for (const [k, v] of Object.entries(e)) if (k !== 'cause') out.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
      e = e.cause;
    } else {
      e = undefined;
    }
  }
  return out;
}

/** Asserts that `err` holds none of `secrets` anywhere. */
export function assertNoSecrets(err: unknown, secrets: readonly string[]): void {
  const texts = errorTexts(err).join('\n');
  for (const s of secrets) assert.ok(!texts.includes(s), `the error shows a secret (${s.slice(0, 3)}…): ${texts}`);
}

function tempFile(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-faults-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'local');
  writeFileSync(file, Buffer.alloc(64 * 1024, 1));
  return file;
}

/** Runs `op`, expecting it to fail; returns the error and how long it took. */
async function failure(op: () => Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const start = performance.now();
  try {
    await op();
  } catch (err) {
    return { err, ms: performance.now() - start };
  }
  assert.fail('the operation succeeded against a store that cannot answer');
}

function assertUnavailable(err: unknown, description: string, action: string): void {
  assert.ok(err instanceof TsdbError, `${action}: expected a TsdbError, got ${String(err)}`);
  assert.equal(err.code, StatusCode.StorageUnavailable, `${action}: ${err.message}`);
  assert.ok(err.message.includes(description), `${action}: the message does not name ${description}: ${err.message}`);
}

export function runRemoteFaultSuite(name: string, options: RemoteFaultOptions): void {
  // The two tests at once: each mostly waits.
  describe(`remote store faults: ${name}`, { concurrency: true }, () => {
    test('nothing listening: read, stat, upload and download fail with StorageUnavailable naming the store, in bounded time', async (t) => {
      const endpoint = await refusedEndpoint();
      const timeoutMs = 20_000;
      const store = new OpendalObjectStore({ scheme: options.scheme, config: options.config(endpoint), description: options.description, requestTimeoutMs: timeoutMs });
      const local = tempFile(t);
      const ops: Array<[string, () => Promise<unknown>]> = [
        ['read', () => store.read('region/a.parquet')],
        ['stat', () => store.stat('region/a.parquet')],
        ['upload', () => store.upload('region/a.parquet', local, 5 * 1024 * 1024)],
        ['download', () => store.download('region/a.parquet', `${local}.down`)],
      ];
      // At once: OpenDAL retries a refused connection a few times with backoff (seconds each).
      const results = await Promise.all(ops.map(([, op]) => failure(op)));
      for (const [i, { err, ms }] of results.entries()) {
        const action = ops[i]![0];
        assertUnavailable(err, options.description, action);
        // The cause is told, not a timeout: the request could not be sent.
        assert.match((err as Error).message, /error sending request/, action);
        assertNoSecrets(err, options.secrets);
        assert.ok(ms < timeoutMs, `${action} took ${Math.round(ms)} ms`);
      }
    });

    test('a server that never answers: each operation fails within requestTimeoutMs', async (t) => {
      const silent = await startSilentServer();
      t.after(() => silent.stop());
      const timeoutMs = 400;
      const store = new OpendalObjectStore({ scheme: options.scheme, config: options.config(silent.endpoint), description: options.description, requestTimeoutMs: timeoutMs });
      const local = tempFile(t);
      const ops: Array<[string, () => Promise<unknown>]> = [
        ['read', () => store.read('region/a.parquet')],
        ['stat', () => store.stat('region/a.parquet')],
        ['write', () => store.write('region/a.parquet', Buffer.from('x'))],
        ['upload', () => store.upload('region/a.parquet', local, 5 * 1024 * 1024)],
        ['download', () => store.download('region/a.parquet', `${local}.down`)],
        ['list', () => store.list('region/')],
      ];
      for (const [action, op] of ops) {
        const { err, ms } = await failure(op);
        assertUnavailable(err, options.description, action);
        assert.match((err as Error).message, new RegExp(`did not answer within ${timeoutMs} ms`), action);
        assertNoSecrets(err, options.secrets);
        assert.ok(ms >= timeoutMs - 50 && ms < timeoutMs + 1500, `${action} failed after ${Math.round(ms)} ms, not about ${timeoutMs} ms`);
      }
      assert.ok(silent.accepted() > 0, 'the store never connected to the silent server');
    });
  });
}
