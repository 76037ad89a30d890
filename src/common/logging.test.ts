import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fillDisk, mountTmpfs } from '../../test/support/tmpfs.js';
import { HealthBoard } from './health/health-board.js';
import { createLogger, LOG_RETAIN_BYTES } from './logging.js';

function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (cond()) resolve();
      else if (Date.now() > until) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(check, 20);
    };
    check();
  });
}

test('a full log disk: lines are kept up to a bound, then dropped and counted, never blocking nor throwing; logging resumes when space returns', async (t) => {
  // Room for what both files keep (LOG_RETAIN_BYTES each) once the filler is gone.
  const disk = mountTmpfs(t, 8);
  const dir = join(disk, 'logs');
  const health = new HealthBoard();
  const handle = await createLogger({ level: 'info', dir, appendStdout: false, maxFiles: 3, health });
  handle.logger.info('before');
  fillDisk(join(disk, 'filler'));
  const line = 'x'.repeat(1000);
  const started = Date.now();
  const n = Math.ceil((2 * LOG_RETAIN_BYTES) / line.length);
  for (let i = 0; i < n; i++) handle.logger.error({ i }, line);
  // A fatal path flushes synchronously: it must return at once, not retry forever.
  handle.flushSync();
  assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms to log ${n} lines on a full disk`);
  const report = health.report();
  assert.deepEqual(report.conditions.map((c) => c.source), ['logging', 'logging']);
  assert.match(report.conditions[0]!.message, /^cannot write the log file .*: ENOSPC/);
  assert.ok(report.log_lines_dropped > 0 && report.log_lines_dropped < 2 * n, `${report.log_lines_dropped} lines dropped`);

  rmSync(join(disk, 'filler'));
  // The error file is retried without a new line; the main file with the next one.
  await waitFor(() => health.report().conditions.length <= 1, 'the error log to recover');
  handle.logger.info('after');
  await waitFor(() => health.report().conditions.length === 0, 'the log to recover');
  await handle.close();
  const main = readdirSync(dir).find((f) => f.startsWith('tsdb.'))!;
  const lines = readFileSync(join(dir, main), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { msg: string; i?: number; dropped_lines?: number });
  assert.equal(lines[0]!.msg, 'before');
  // 'after' follows what was kept (the recovery warning it triggers may follow it).
  const after = lines.findIndex((l) => l.msg === 'after');
  assert.ok(after > 0 && lines.slice(after + 1).every((l) => l.i === undefined && l.msg !== 'before'), lines.slice(-3).map((l) => l.msg).join(' | '));
  // What was kept is written in order, whole lines only; the drop is logged.
  const kept = lines.filter((l) => l.i !== undefined).map((l) => l.i!);
  assert.deepEqual(kept, kept.map((_, k) => kept[0]! + k));
  assert.ok(lines.some((l) => /^the log file can be written again; \d+ lines were dropped meanwhile$/.test(l.msg)));
});
