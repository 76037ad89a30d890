import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cell, OutputColumn } from '../../query/output.js';
import { CLIENT_DEPRECATE_EOF, CLIENT_PROTOCOL_41, SERVER_MORE_RESULTS_EXISTS } from './handshake.js';
import { encodeTextRow, framePayloads, resultSetPackets, type ResultSetOptions } from './resultset.js';
import { ResultSetCut, ROW_CHUNK_BYTES, RowPacketEncoder, writeResultSet } from './row-encoder.js';

/** Each type with cells of every shape a result holds: the old row-at-a-time path is the reference. */
const CASES: ReadonlyArray<{ dataType: string; cells: readonly Cell[] }> = [
  { dataType: 'Boolean', cells: [true, false, 1, 0, 1n, 'true', '1', 'f', null] },
  { dataType: 'Int8', cells: [-128, 127, 0, -0, 200, 3n, null] },
  { dataType: 'Int16', cells: [-32768, 32767, 70000, -1, null] },
  { dataType: 'Int32', cells: [-2147483648, 2147483647, -1, 4294967296 + 5, null] },
  { dataType: 'Int64', cells: [0, -1, 2 ** 53 - 1, -(2 ** 53) + 1, -(2 ** 32), 2 ** 32 + 7, 2n ** 63n - 1n, -(2n ** 63n), 12345678901234567n, -0, null] },
  { dataType: 'UInt8', cells: [255, 0, null] },
  { dataType: 'UInt16', cells: [65535, 0, null] },
  { dataType: 'UInt32', cells: [4294967295, 0, null] },
  { dataType: 'UInt64', cells: [2n ** 64n - 1n, 0, 2 ** 53 - 1, null] },
  { dataType: 'Float32', cells: [Math.fround(0.1), -0, Number.NaN, Infinity, -Infinity, 3.4028234663852886e38, 1e-45, null] },
  {
    dataType: 'Float64',
    cells: [1.5, -0, 0, Number.NaN, Infinity, -Infinity, 0.1 + 0.2, 1e21, 1e-7, 123456789012345680000, 5e-324, Number.MAX_VALUE, -2.5e-5, 42, 7n, null],
  },
  { dataType: 'String', cells: ['', 'héllo', 'plain ascii', '日本語のテキスト', '😀 emoji', 'x'.repeat(83), 'é'.repeat(83), 'y'.repeat(84), 'ü'.repeat(300), 'z'.repeat(70000), '\u0000nul', 'a\ud800b', 12, null] },
  { dataType: 'Binary', cells: [[0, 1, 255], [], 'text as bytes', null] },
  { dataType: 'Date', cells: [19782, 0, -1, -719528, null] },
  { dataType: 'Json', cells: [{ a: 1, b: [true, null] }, [1, 2n], 'text', null] },
  { dataType: 'Null', cells: [null] },
  { dataType: 'TimestampSecond', cells: [1704164645, 0, -1, 253402300799, null] },
  {
    dataType: 'TimestampMillisecond',
    cells: [1704164645678, 1704164645000, 1704153600000, 0, -1, -1500, 1704164645678n, 2 ** 53 - 1, 2n ** 60n, 1.5, '2024-01-02 03:04:05', null],
  },
  { dataType: 'TimestampMicrosecond', cells: [1704164645678901, 1704164645000001, -1, 0, 1704164645678901n, null] },
  { dataType: 'TimestampNanosecond', cells: [1704164645678901234n, 1704164645000000001n, -1n, 0n, 1704164645123456000n, 1704164645000000000, null] },
  { dataType: 'TimeSecond', cells: [3723, -3723, 0, null] },
  { dataType: 'TimeMillisecond', cells: [3723004, 90061001, null] },
  { dataType: 'TimeMicrosecond', cells: [3723000004, null] },
  { dataType: 'TimeNanosecond', cells: [3723000000005n, null] },
  { dataType: 'Decimal(10, 2)', cells: ['12.34', '-0.01', null] },
  { dataType: 'IntervalMonthDayNano', cells: ['1 mon 2 days', { months: 1, days: 2, nanoseconds: 3n }, null] },
  { dataType: 'List(Int64)', cells: [[1, 2, 3], null] },
];

const ZONES = ['UTC', '+08:00', '-03:30', 'Asia/Shanghai', 'America/New_York', 'Europe/Berlin'];

/** One column per case, rows cycling through each case's cells. */
function table(): { columns: OutputColumn[]; rows: Cell[][] } {
  const columns = CASES.map((c, k) => ({ name: `c${k}`, data_type: c.dataType }));
  const n = Math.max(...CASES.map((c) => c.cells.length));
  const rows: Cell[][] = [];
  for (let r = 0; r < n; r++) rows.push(CASES.map((c) => c.cells[r % c.cells.length]!));
  return { columns, rows };
}

async function written(columns: readonly OutputColumn[], rows: readonly (readonly Cell[])[], opts: ResultSetOptions): Promise<{ bytes: Buffer; nextSeq: number; sends: number }> {
  const chunks: Buffer[] = [];
  const nextSeq = await writeResultSet(columns, rows, opts, async (b) => void chunks.push(Buffer.from(b)));
  return { bytes: Buffer.concat(chunks), nextSeq, sends: chunks.length };
}

function assertSameBytes(actual: Buffer, expected: Buffer, what: string): void {
  if (actual.equals(expected)) return;
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  assert.fail(`${what}: bytes differ from offset ${at} (${actual.length} against ${expected.length} bytes): ${actual.subarray(at, at + 24).toString('hex')} against ${expected.subarray(at, at + 24).toString('hex')}`);
}

describe('MySQL row encoder', () => {
  for (const binary of [false, true]) {
    for (const timeZone of ZONES) {
      test(`${binary ? 'binary' : 'text'} rows in ${timeZone}: the bytes of resultSetPackets`, async () => {
        const { columns, rows } = table();
        for (const capabilities of [CLIENT_PROTOCOL_41, CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF]) {
          const opts: ResultSetOptions = { capabilities, seq: 1, timeZone, binary, statusFlags: SERVER_MORE_RESULTS_EXISTS };
          const expected = resultSetPackets(columns, rows, opts);
          const got = await written(columns, rows, opts);
          assertSameBytes(got.bytes, expected.bytes, `capabilities ${capabilities}`);
          assert.equal(got.nextSeq, expected.nextSeq);
        }
      });
    }
  }

  test('one column at a time, each type alone (a wrong writer shows its own type)', async () => {
    for (const c of CASES) {
      const columns = [{ name: 'v', data_type: c.dataType }];
      const rows = c.cells.map((cell) => [cell]);
      for (const binary of [false, true]) {
        const opts: ResultSetOptions = { capabilities: CLIENT_PROTOCOL_41, seq: 3, timeZone: 'Asia/Shanghai', binary };
        assertSameBytes((await written(columns, rows, opts)).bytes, resultSetPackets(columns, rows, opts).bytes, `${c.dataType} ${binary ? 'binary' : 'text'}`);
      }
    }
  });

  test('cells that the old path refuses are refused too', async () => {
    const opts: ResultSetOptions = { capabilities: CLIENT_PROTOCOL_41, seq: 1, timeZone: 'UTC', binary: true };
    for (const [dataType, cell] of [['Int64', Number.NaN], ['Int32', 'not a number'], ['TimestampMillisecond', 'not a time']] as const) {
      const columns = [{ name: 'v', data_type: dataType }];
      assert.throws(() => resultSetPackets(columns, [[cell]], opts));
      await assert.rejects(written(columns, [[cell]], opts));
    }
  });

  test('many rows: chunks of about ROW_CHUNK_BYTES, sequence ids wrapping past 255, the same bytes', async () => {
    const columns = [
      { name: 'host', data_type: 'String' },
      { name: 'ts', data_type: 'TimestampMillisecond' },
      { name: 'v', data_type: 'Float64' },
      { name: 'n', data_type: 'Int64' },
    ];
    const rows: Cell[][] = [];
    for (let i = 0; i < 20_000; i++) rows.push([`host_${i % 97}`, 1451606400000 + i * 10_000 + (i % 3), i % 7 === 0 ? null : Math.sin(i) * 100, i * 1_000_003]);
    for (const binary of [false, true]) {
      const opts: ResultSetOptions = { capabilities: CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, seq: 1, timeZone: 'Europe/Berlin', binary };
      const expected = resultSetPackets(columns, rows, opts);
      const got = await written(columns, rows, opts);
      assertSameBytes(got.bytes, expected.bytes, binary ? 'binary' : 'text');
      assert.equal(got.nextSeq, expected.nextSeq);
      assert.ok(got.sends >= Math.floor(expected.bytes.length / ROW_CHUNK_BYTES), `${got.sends} sends for ${expected.bytes.length} bytes`);
    }
  });

  test('encode() of consecutive ranges carries the sequence id on', () => {
    const columns = [{ name: 's', data_type: 'String' }];
    const rows: Cell[][] = Array.from({ length: 600 }, (_, i) => [`r${i}`]);
    const expected = framePayloads(rows.map((r) => encodeTextRow(r, columns, 'UTC')), 2);
    const enc = new RowPacketEncoder(columns, false, 'UTC', 2);
    const parts: Buffer[] = [];
    for (const [from, to] of [[0, 1], [1, 256], [256, 600]] as const) {
      const { bytes, next } = enc.encode(rows, from, to);
      assert.equal(next, to);
      parts.push(Buffer.from(bytes));
    }
    assertSameBytes(Buffer.concat(parts), expected.bytes, 'rows');
    assert.equal(enc.seq, expected.nextSeq);
  });

  test('a row of 16 MiB or more is split into packets as writePacket splits it', async () => {
    const columns = [{ name: 'big', data_type: 'String' }, { name: 'n', data_type: 'Int32' }];
    const rows: Cell[][] = [['a'.repeat(0xffffff + 10), 1], ['b', 2]];
    for (const binary of [false, true]) {
      const opts: ResultSetOptions = { capabilities: CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, seq: 1, timeZone: 'UTC', binary };
      const expected = resultSetPackets(columns, rows, opts);
      const got = await written(columns, rows, opts);
      assertSameBytes(got.bytes, expected.bytes, binary ? 'binary' : 'text');
      assert.equal(got.nextSeq, expected.nextSeq);
    }
  });

  test('send() resolving to false (the connection closed) stops the encoding', async () => {
    const columns = [{ name: 's', data_type: 'String' }];
    const rows: Cell[][] = Array.from({ length: 100_000 }, (_, i) => [`row ${i} of a result nobody reads any more`]);
    let sends = 0;
    await writeResultSet(columns, rows, { capabilities: CLIENT_PROTOCOL_41, seq: 1, timeZone: 'UTC' }, async () => {
      sends++;
      return false;
    });
    assert.equal(sends, 1);
  });

  test('the event loop turns between chunks even when every send completes at once', async () => {
    const columns = [{ name: 's', data_type: 'String' }];
    const rows: Cell[][] = Array.from({ length: 50_000 }, (_, i) => [`row ${i}: some text to fill the chunks`]);
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    let sends = 0;
    await writeResultSet(columns, rows, { capabilities: CLIENT_PROTOCOL_41, seq: 1, timeZone: 'UTC' }, async () => void sends++);
    done = true;
    assert.ok(sends > 4, `${sends} sends`);
    assert.ok(turns >= sends - 1, `${turns} turns of the event loop for ${sends} sends`);
  });

  test('an error after rows were sent is a ResultSetCut with the sequence id after the last packet sent', async () => {
    const columns = [{ name: 'n', data_type: 'Int64' }];
    const rows: Cell[][] = Array.from({ length: 100_000 }, (_, i) => [i]);
    rows.push([Number.NaN]);
    const chunks: Buffer[] = [];
    const opts: ResultSetOptions = { capabilities: CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, seq: 1, timeZone: 'UTC', binary: true };
    const err: unknown = await writeResultSet(columns, rows, opts, async (b) => void chunks.push(Buffer.from(b))).then(
      () => assert.fail('a NaN in an Int64 column is refused in binary rows'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ResultSetCut, String(err));
    assert.ok(chunks.length > 1);
    // Walk the packets sent: the cut's id follows the last one's.
    const sent = Buffer.concat(chunks);
    let at = 0;
    let last = -1;
    while (at < sent.length) {
      last = sent[at + 3]!;
      at += 4 + sent.readUIntLE(at, 3);
    }
    assert.equal(at, sent.length, 'whole packets only');
    assert.equal(err.seq, (last + 1) & 0xff);
  });

  test('an empty result: definitions and the end packet only', async () => {
    const columns = [{ name: 'a', data_type: 'Int64' }];
    const opts: ResultSetOptions = { capabilities: CLIENT_PROTOCOL_41, seq: 1, timeZone: 'UTC' };
    const got = await written(columns, [], opts);
    assertSameBytes(got.bytes, resultSetPackets(columns, [], opts).bytes, 'empty');
    assert.equal(got.sends, 1);
  });
});
