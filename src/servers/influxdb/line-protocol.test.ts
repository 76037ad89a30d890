import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_COLUMNS_PER_TABLE } from '../../catalog/limits.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { IngestColumn, IngestTable } from '../../frontend/ingest-request.js';
import { cellLimitProblem, INGEST_CELLS_PER_BYTE, INGEST_MAX_CELLS, INGEST_MIN_CELLS, ingestCellLimit } from '../ingest-budget.js';
import { LineProtocolError, parseLineProtocol, parsePrecision, resetSeriesCache, type Precision } from './line-protocol.js';

const NOW = 1_700_000_000_000_000_000n;

function parse(body: string, precision: Precision = 'ns'): IngestTable[] {
  return parseLineProtocol(body, { precision, now: NOW });
}

function one(body: string, precision: Precision = 'ns'): IngestTable {
  const tables = parse(body, precision);
  assert.equal(tables.length, 1, `one table for ${JSON.stringify(body)}`);
  return tables[0]!;
}

function column(t: IngestTable, name: string): IngestColumn {
  const c = t.columns.find((x) => x.name === name);
  assert.ok(c, `column ${name} in ${t.columns.map((x) => x.name).join(',')}`);
  return c;
}

/** The values of a column as plain JS values, NULL as null. */
function values(t: IngestTable, name: string): unknown[] {
  const v = column(t, name).vector;
  const out: unknown[] = [];
  for (let i = 0; i < t.rowCount; i++) {
    if (v.type === 'string' || v.type === 'binary') out.push(v.data[i]);
    else if (v.valid !== undefined && v.valid[i] === 0) out.push(null);
    else if (v.type === 'bool') out.push(v.data[i] === 1);
    else out.push(v.data[i]);
  }
  return out;
}

function tag(name: string, data: (string | null)[]): IngestColumn {
  return { name, semantic: 'tag', type: 'String', vector: { type: 'string', data } };
}

function ts(...ns: bigint[]): IngestColumn {
  return { name: 'tsdb_timestamp', semantic: 'timestamp', type: 'TimestampNanosecond', vector: { type: 'int64', data: BigInt64Array.from(ns) } };
}

/** The problem a body is refused for: asserts a LineProtocolError on `line` and returns its message. */
function failure(body: string, line: number, precision: Precision = 'ns'): string {
  try {
    parse(body, precision);
  } catch (err) {
    assert.ok(err instanceof LineProtocolError, `LineProtocolError, not ${String(err)}`);
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, StatusCode.InvalidArguments);
    assert.equal(err.line, line, `line of ${JSON.stringify(err.message)}`);
    const prefix = `Failed to parse InfluxDB line protocol, line ${line}: `;
    assert.ok(err.message.startsWith(prefix), err.message);
    return err.message.slice(prefix.length);
  }
  assert.fail(`${JSON.stringify(body)} parsed`);
}

describe('parsePrecision', () => {
  test('every accepted name', () => {
    const cases: [string | undefined, Precision][] = [
      [undefined, 'ns'],
      ['', 'ns'],
      ['n', 'ns'],
      ['ns', 'ns'],
      ['u', 'us'],
      ['us', 'us'],
      ['µ', 'us'],
      ['ms', 'ms'],
      ['s', 's'],
      ['m', 'm'],
      ['h', 'h'],
    ];
    for (const [name, p] of cases) assert.equal(parsePrecision(name), p, String(name));
  });

  test('anything else is InvalidArguments', () => {
    for (const name of ['x', 'NS', 'sec', 'd', ' ns', 'mus']) {
      assert.throws(
        () => parsePrecision(name),
        (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && e.message === `Failed to convert time precision, name: ${name}`,
      );
    }
  });
});

describe('parseLineProtocol: output', () => {
  test('a line: tags, then fields, then the timestamp', () => {
    const t = one('cpu,host=a,region=eu usage=1.5,count=3i,up=t,name="x",big=7u 1451606400000000000\n');
    assert.deepEqual(t, {
      name: 'cpu',
      rowCount: 1,
      columns: [
        tag('host', ['a']),
        tag('region', ['eu']),
        { name: 'usage', semantic: 'field', type: 'Float64', vector: { type: 'float64', data: Float64Array.of(1.5) } },
        { name: 'count', semantic: 'field', type: 'Int64', vector: { type: 'int64', data: BigInt64Array.of(3n) } },
        { name: 'up', semantic: 'field', type: 'Boolean', vector: { type: 'bool', data: Uint8Array.of(1) } },
        { name: 'name', semantic: 'field', type: 'String', vector: { type: 'string', data: ['x'] } },
        { name: 'big', semantic: 'field', type: 'UInt64', vector: { type: 'uint64', data: BigUint64Array.of(7n) } },
        ts(1451606400000000000n),
      ],
    });
  });

  test('an empty body, blank lines and comments give no tables', () => {
    assert.deepEqual(parse(''), []);
    assert.deepEqual(parse('\n\n  \n\t\n# a comment, with "quotes\n   # indented comment\r\n\r\n'), []);
  });

  test('floats: every form Influx accepts, exactly as Number() reads them', () => {
    const forms = ['1', '-1', '0', '-0', '1.', '.5', '-.5', '1.5', '1e5', '1E5', '1e+5', '-1.5E-3', '1.e2', '.5e1', '007', '0.1', '0.30000000000000004', '123456789012345678901234567890', '1e-400', '1.7976931348623157e308', '9007199254740993', '0.000000000000000000000001'];
    const t = one(forms.map((f) => `m v=${f} 1`).join('\n'));
    const got = column(t, 'v').vector;
    assert.equal(got.type, 'float64');
    assert.deepEqual(got.data, Float64Array.from(forms, Number));
    assert.ok(Object.is(got.data[3], -0), '-0 keeps its sign');
  });

  test('floats with up to 15 digits match Number() bit for bit', () => {
    let seed = 12345;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const forms: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const digits = String(Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 15)))).padStart(1 + Math.floor(rnd() * 4), '0');
      const dot = Math.floor(rnd() * (digits.length + 1));
      const sign = rnd() < 0.3 ? '-' : '';
      forms.push(`${sign}${digits.slice(0, dot)}.${digits.slice(dot)}`.replace(/^(-?)\.$/, '$10'));
    }
    const t = one(forms.map((f) => `m v=${f} 1`).join('\n'));
    assert.deepEqual(column(t, 'v').vector.data, Float64Array.from(forms, Number));
  });

  test('integers and unsigned integers: the whole 64-bit ranges', () => {
    const ints = ['0', '-0', '1', '-1', '9007199254740991', '9007199254740993', '-9007199254740993', '9223372036854775807', '-9223372036854775808', '0000000000000000000000042'];
    const t = one(ints.map((v) => `m v=${v}i 1`).join('\n'));
    assert.deepEqual(column(t, 'v'), { name: 'v', semantic: 'field', type: 'Int64', vector: { type: 'int64', data: BigInt64Array.from(ints, (v) => BigInt(v)) } });
    const uints = ['0', '1', '4294967295', '4294967296', '9007199254740993', '9223372036854775808', '18446744073709551615'];
    const u = one(uints.map((v) => `m v=${v}u 1`).join('\n'));
    assert.deepEqual(column(u, 'v'), { name: 'v', semantic: 'field', type: 'UInt64', vector: { type: 'uint64', data: BigUint64Array.from(uints, (v) => BigInt(v)) } });
  });

  test('booleans: t T true True TRUE f F false False FALSE', () => {
    const forms = ['t', 'T', 'true', 'True', 'TRUE', 'f', 'F', 'false', 'False', 'FALSE'];
    const t = one(forms.map((f) => `m v=${f} 1`).join('\n'));
    assert.deepEqual(column(t, 'v').vector, { type: 'bool', data: Uint8Array.of(1, 1, 1, 1, 1, 0, 0, 0, 0, 0) });
  });

  test('strings: \\" and \\\\ are escapes, other backslashes literal; any character inside', () => {
    const t = one(
      [
        'm s=""',
        'm s="plain"',
        'm s="a \\"quoted\\" word"',
        'm s="back\\\\slash"',
        'm s="lone \\ backslash \\n \\t"',
        'm s="ends with backslash\\\\"',
        'm s="commas, spaces = equals # hash \'single\'"',
        'm s="ünïcödé ✓ 😀"',
        'm s="\\\\\\""',
      ].join('\n'),
    );
    assert.deepEqual(values(t, 's'), ['', 'plain', 'a "quoted" word', 'back\\slash', 'lone \\ backslash \\n \\t', 'ends with backslash\\', "commas, spaces = equals # hash 'single'", 'ünïcödé ✓ 😀', '\\"']);
  });

  test('a string may span lines; later lines keep their physical numbers', () => {
    const t = one('m s="one\ntwo\r\nthree" 1\nm s="x" 2\n');
    assert.deepEqual(values(t, 's'), ['one\ntwo\r\nthree', 'x']);
    assert.equal(failure('m s="one\ntwo" 1\nm s=bad 2\n', 3), 'invalid field value "bad" for field "s"');
  });

  test('measurement escapes: \\, \\space \\\\; = and quotes are literal; other backslashes literal', () => {
    const cases: [string, string][] = [
      ['a\\,b', 'a,b'],
      ['a\\ b', 'a b'],
      ['a\\\\b', 'a\\b'],
      ['a=b', 'a=b'],
      ['a\\=b', 'a\\=b'],
      ['"q"', '"q"'],
      ['a\\b', 'a\\b'],
      ['ends\\\\', 'ends\\'],
      ['\\ lead', ' lead'],
      ['tab\there', 'tab\there'],
    ];
    for (const [raw, name] of cases) assert.equal(one(`${raw} f=1 1`).name, name, raw);
    for (const [raw, name] of cases) assert.equal(one(`${raw},t=v f=1 1`).name, name, `${raw} with tags`);
  });

  test('tag key, tag value and field key escapes: \\, \\= \\space \\\\', () => {
    const t = one('m,k\\,1\\=2\\ 3\\\\4=v\\,1\\=2\\ 3\\\\4,q\\x="quoted" f\\,1\\=2\\ 3\\\\4=1,g\\y"z=2 1');
    assert.deepEqual(
      t.columns.map((c) => c.name),
      ['k,1=2 3\\4', 'q\\x', 'f,1=2 3\\4', 'g\\y"z', 'tsdb_timestamp'],
    );
    assert.deepEqual(values(t, 'k,1=2 3\\4'), ['v,1=2 3\\4']);
    assert.deepEqual(values(t, 'q\\x'), ['"quoted"']);
    assert.deepEqual(values(t, 'f,1=2 3\\4'), [1]);
  });

  test('the same escaped series twice (the second from the series cache)', () => {
    const body = 'm\\ 1,t\\ k=v\\,1 f=1 1\nm\\ 1,t\\ k=v\\,1 f=2 2\nm\\ 1,t\\ k=v\\,2 f=3 3\n';
    const t = one(body);
    assert.equal(t.name, 'm 1');
    assert.deepEqual(values(t, 't k'), ['v,1', 'v,1', 'v,2']);
    assert.deepEqual(one(body), t);
  });

  test('rows without a tag or field get NULL; valid only where a NULL is', () => {
    const t = one(['m,a=1 x=1,s="p" 1', 'm,b=2 y=2i 2', 'm,a=3,b=4 x=3,y=4i,z=t 3'].join('\n'));
    assert.deepEqual(
      t.columns.map((c) => c.name),
      ['a', 'b', 'x', 's', 'y', 'z', 'tsdb_timestamp'],
    );
    assert.deepEqual(column(t, 'a').vector, { type: 'string', data: ['1', null, '3'] });
    assert.deepEqual(column(t, 'b').vector, { type: 'string', data: [null, '2', '4'] });
    assert.deepEqual(column(t, 'x').vector, { type: 'float64', data: Float64Array.of(1, 0, 3), valid: Uint8Array.of(1, 0, 1) });
    assert.deepEqual(column(t, 's').vector, { type: 'string', data: ['p', null, null] });
    assert.deepEqual(column(t, 'y').vector, { type: 'int64', data: BigInt64Array.of(0n, 2n, 4n), valid: Uint8Array.of(0, 1, 1) });
    assert.deepEqual(column(t, 'z').vector, { type: 'bool', data: Uint8Array.of(0, 0, 1), valid: Uint8Array.of(0, 0, 1) });
    const full = one('m,a=1 x=1 1\nm,a=2 x=2 2');
    assert.equal((column(full, 'x').vector as { valid?: Uint8Array }).valid, undefined);
  });

  test('many rows: arrays grow and are trimmed; NULLs across growth', () => {
    const lines: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const tags = i % 3 === 0 ? `,h=h${i % 7}` : '';
      const late = i >= 700 ? `,late=${i}u` : '';
      lines.push(`m${tags} v=${i}i${i % 2 === 0 ? `,even="${i}"` : ''}${late} ${i}`);
    }
    const t = one(lines.join('\r\n'));
    assert.equal(t.rowCount, 1000);
    for (const c of t.columns) {
      assert.equal(c.vector.data.length, 1000, c.name);
      if ('valid' in c.vector && c.vector.valid !== undefined) assert.equal(c.vector.valid.length, 1000, c.name);
    }
    const h = values(t, 'h');
    const even = values(t, 'even');
    const late = values(t, 'late');
    for (let i = 0; i < 1000; i++) {
      assert.equal(h[i], i % 3 === 0 ? `h${i % 7}` : null);
      assert.equal(even[i], i % 2 === 0 ? String(i) : null);
      assert.equal(late[i], i >= 700 ? BigInt(i) : null);
    }
    assert.deepEqual(values(t, 'tsdb_timestamp'), Array.from({ length: 1000 }, (_, i) => BigInt(i)));
    assert.deepEqual(values(t, 'v'), Array.from({ length: 1000 }, (_, i) => BigInt(i)));
  });

  test('a string column of a table that grew past its room is NULL, not a hole, in the rows that lack it', () => {
    // The second table starts with room for 64 rows; `a` is only set on its first line.
    const [, t] = parse(['first f=1 0', 'second,a=x s="y" 0', ...Array.from({ length: 99 }, (_, i) => `second f=1 ${i + 1}`)].join('\n'));
    assert.equal(t!.rowCount, 100);
    for (const name of ['a', 's']) {
      const data = column(t!, name).vector.data as (string | null)[];
      assert.equal(data.length, 100);
      assert.deepEqual([...data], [name === 'a' ? 'x' : 'y', ...Array<null>(99).fill(null)], name);
    }
  });

  test('measurements become tables in order of first appearance', () => {
    const tables = parse('b f=1 1\na,t=x g=2i 2\nb f=3 3\nc h=t 4\na,t=y g=5i 5\n');
    assert.deepEqual(
      tables.map((t) => [t.name, t.rowCount]),
      [
        ['b', 2],
        ['a', 2],
        ['c', 1],
      ],
    );
    assert.deepEqual(values(tables[0]!, 'f'), [1, 3]);
    assert.deepEqual(values(tables[1]!, 't'), ['x', 'y']);
    assert.deepEqual(values(tables[1]!, 'tsdb_timestamp'), [2n, 5n]);
  });

  test('precision multiplies the timestamp into nanoseconds', () => {
    const factors: [Precision, bigint][] = [
      ['ns', 1n],
      ['us', 1_000n],
      ['ms', 1_000_000n],
      ['s', 1_000_000_000n],
      ['m', 60_000_000_000n],
      ['h', 3_600_000_000_000n],
    ];
    for (const [p, f] of factors) {
      const t = one('m f=1 1\nm f=1 -3\nm f=1 0\nm f=1 1000003\nm f=1 2562047\nm f=1 -2562024', p);
      assert.deepEqual(values(t, 'tsdb_timestamp'), [f, -3n * f, 0n, 1000003n * f, 2562047n * f, -2562024n * f], p);
    }
  });

  test('timestamps: negative, 19 digits, leading zeros, the limits of a nanosecond column', () => {
    const t = one(
      ['m f=1 1451606400000000000', 'm f=1 -1451606400000000000', 'm f=1 000000000000000000000000000012', 'm f=1 9223372036854775806', 'm f=1 -9223286400000000000', 'm f=1 -1', 'm f=1 4294967296', 'm f=1 -4294967296'].join('\n'),
    );
    assert.deepEqual(values(t, 'tsdb_timestamp'), [1451606400000000000n, -1451606400000000000n, 12n, 9223372036854775806n, -9223286400000000000n, -1n, 4294967296n, -4294967296n]);
    assert.deepEqual(values(one('m f=1 9223372036', 's'), 'tsdb_timestamp'), [9223372036000000000n]);
    assert.deepEqual(values(one('m f=1 -9223286400000', 'ms'), 'tsdb_timestamp'), [-9223286400000000000n]);
    assert.deepEqual(values(one('m f=1 1451606400123', 'ms'), 'tsdb_timestamp'), [1451606400123000000n]);
  });

  test('a line without a timestamp gets `now`, whatever the precision', () => {
    for (const p of ['ns', 's', 'h'] as const) {
      const t = one('m f=1\nm f=2 \nm f=3 5\nm f=4\t\n', p);
      const f = p === 'ns' ? 1n : p === 's' ? 1_000_000_000n : 3_600_000_000_000n;
      assert.deepEqual(values(t, 'tsdb_timestamp'), [NOW, NOW, 5n * f, NOW], p);
    }
    const negative = parseLineProtocol('m f=1', { precision: 'ns', now: -5n })[0]!;
    assert.deepEqual(values(negative, 'tsdb_timestamp'), [-5n]);
  });

  test('CRLF, leading and trailing whitespace, several spaces between sections', () => {
    const t = one('  m,t=a f=1 1\r\n\tm,t=b   f=2    2   \r\nm,t=c f=3\r\nm,t=d f=4 4\t \r\n\r\nm,t=e f=5 5');
    assert.deepEqual(values(t, 't'), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(values(t, 'f'), [1, 2, 3, 4, 5]);
    assert.deepEqual(values(t, 'tsdb_timestamp'), [1n, 2n, NOW, 4n, 5n]);
  });

  test('a repeated field in a line: the last value wins, the column keeps its first place', () => {
    const t = one('m a=1,b=2,a=3 1\nm b=4,a=5,a=6,b=7 2');
    assert.deepEqual(
      t.columns.map((c) => c.name),
      ['a', 'b', 'tsdb_timestamp'],
    );
    assert.deepEqual(values(t, 'a'), [3, 6]);
    assert.deepEqual(values(t, 'b'), [2, 7]);
  });

  test('keys in another order or another set on the next line of a table', () => {
    const t = one('m,a=1,b=2 x=1,y=2 1\nm,b=3,a=4 y=3,x=4 2\nm,c=5 z=5 3\nm,a=6,b=7 x=6,y=7 4');
    assert.deepEqual(values(t, 'a'), ['1', '4', null, '6']);
    assert.deepEqual(values(t, 'b'), ['2', '3', null, '7']);
    assert.deepEqual(values(t, 'c'), [null, null, '5', null]);
    assert.deepEqual(values(t, 'x'), [1, 4, null, 6]);
    assert.deepEqual(values(t, 'y'), [2, 3, null, 7]);
    assert.deepEqual(values(t, 'z'), [null, null, 5, null]);
  });

  test('a key that is a prefix of the previous line\'s key is another key', () => {
    const t = one('m,host=a,hostname=b value=1,value2=2 1\nm,hostname=c,host=d value2=3,value=4 2');
    assert.deepEqual(values(t, 'host'), ['a', 'd']);
    assert.deepEqual(values(t, 'hostname'), ['b', 'c']);
    assert.deepEqual(values(t, 'value'), [1, 4]);
    assert.deepEqual(values(t, 'value2'), [2, 3]);
  });

  test('more series than the series cache holds: full, then starting over; values stay right', () => {
    try {
      for (const limit of [1, 3, 8, 64]) {
        resetSeriesCache(limit);
        // 50 series, cycled 12 times, then in reverse, so the cache fills, misses, starts over.
        const lines: string[] = [];
        for (let round = 0; round < 12; round++) for (let i = 0; i < 50; i++) lines.push(`manyseries,h=h${i},z=${i % 3} v=${round * 50 + i}i ${i}`);
        lines.push(...[...lines].reverse());
        const body = lines.join('\n');
        const parts = lines.map((l) => /^manyseries,h=(h\d+),z=(\d) v=(\d+)i /.exec(l)!);
        for (let pass = 0; pass < 3; pass++) {
          const t = one(body);
          assert.deepEqual(values(t, 'h'), parts.map((m) => m[1]), `limit ${limit}, pass ${pass}`);
          assert.deepEqual(values(t, 'z'), parts.map((m) => m[2]));
          assert.deepEqual(values(t, 'v'), parts.map((m) => BigInt(m[3]!)));
        }
      }
    } finally {
      resetSeriesCache();
    }
  });

  test('non-ASCII names and values', () => {
    const t = one('météo,ville=Zürich,城市=東京 température=21.5,note="☀️" 1\nmétéo,ville=Zürich,城市=東京 température=22 2');
    assert.equal(t.name, 'météo');
    assert.deepEqual(values(t, 'ville'), ['Zürich', 'Zürich']);
    assert.deepEqual(values(t, '城市'), ['東京', '東京']);
    assert.deepEqual(values(t, 'température'), [21.5, 22]);
    assert.deepEqual(values(t, 'note'), ['☀️', null]);
  });

  test('repeated tag values share one string; values parse the same with a warm series cache', () => {
    resetSeriesCache();
    const body = 'cpu,host=h1,dc=x v=1 1\ncpu,host=h2,dc=x v=2 1\ncpu,host=h1,dc=x v=3 2\n';
    const cold = one(body);
    const warm = one(body);
    assert.deepEqual(warm, cold);
    assert.deepEqual(values(warm, 'host'), ['h1', 'h2', 'h1']);
  });
});

describe('parseLineProtocol: errors', () => {
  const cases: [body: string, line: number, problem: string][] = [
    // Structure.
    [',t=a f=1', 1, 'missing measurement'],
    ['m', 1, 'missing fields'],
    ['m ', 1, 'missing fields'],
    ['m  \r\n', 1, 'missing fields'],
    ['m,t=a', 1, 'missing fields'],
    ['m,t=a ', 1, 'missing fields'],
    ['m,t=a\nm f=1', 1, 'missing fields'],
    ['m f=1\nm,t=a\n', 2, 'missing fields'],
    // Tags.
    ['m,=a f=1', 1, 'missing tag key'],
    ['m, f=1', 1, 'missing tag key'],
    ['m,t=a, f=1', 1, 'missing tag key'],
    ['m,t=a,,u=b f=1', 1, 'missing tag key'],
    ['m,t= f=1', 1, 'missing tag value for tag "t"'],
    ['m,t=,u=b f=1', 1, 'missing tag value for tag "t"'],
    ['m,t f=1', 1, 'missing tag value for tag "t"'],
    ['m,t,u=b f=1', 1, 'missing tag value for tag "t"'],
    ['m,t=a=b f=1', 1, 'unescaped "=" in the value of tag "t"'],
    ['m,t=a,t=b f=1', 1, 'duplicate tag "t"'],
    ['m,t=a,u=b,t=a f=1', 1, 'duplicate tag "t"'],
    ['m,tsdb_timestamp=a f=1', 1, '"tsdb_timestamp" is reserved for the timestamp column'],
    // Field keys.
    ['m =1', 1, 'missing field key'],
    ['m f=1,', 1, 'missing field key'],
    ['m f=1,,g=2', 1, 'missing field key'],
    ['m f=1, g=2', 1, 'missing field key'],
    ['m f', 1, 'missing "=" after field key "f"'],
    ['m f 1', 1, 'missing "=" after field key "f"'],
    ['m f,g=1', 1, 'missing "=" after field key "f"'],
    ['m tsdb_timestamp=1', 1, '"tsdb_timestamp" is reserved for the timestamp column'],
    // Field values.
    ['m f=', 1, 'missing value for field "f"'],
    ['m f= 1', 1, 'missing value for field "f"'],
    ['m f=,g=1', 1, 'missing value for field "f"'],
    ['m f=\r\n', 1, 'missing value for field "f"'],
    ['m x=abc', 1, 'invalid field value "abc" for field "x"'],
    ['m x=1.2.3', 1, 'invalid field value "1.2.3" for field "x"'],
    ['m x=1a', 1, 'invalid field value "1a" for field "x"'],
    ['m x=-', 1, 'invalid field value "-" for field "x"'],
    ['m x=.', 1, 'invalid field value "." for field "x"'],
    ['m x=-.', 1, 'invalid field value "-." for field "x"'],
    ['m x=1e', 1, 'invalid field value "1e" for field "x"'],
    ['m x=1e+', 1, 'invalid field value "1e+" for field "x"'],
    ['m x=1e5.5', 1, 'invalid field value "1e5.5" for field "x"'],
    ['m x=1.5i', 1, 'invalid field value "1.5i" for field "x"'],
    ['m x=1e3i', 1, 'invalid field value "1e3i" for field "x"'],
    ['m x=-1u', 1, 'invalid field value "-1u" for field "x"'],
    ['m x=1.5u', 1, 'invalid field value "1.5u" for field "x"'],
    ['m x=1ii', 1, 'invalid field value "1ii" for field "x"'],
    ['m x=-i', 1, 'invalid field value "-i" for field "x"'],
    ['m x=i', 1, 'invalid field value "i" for field "x"'],
    ['m x=NaN', 1, 'invalid field value "NaN" for field "x"'],
    ['m x=nan', 1, 'invalid field value "nan" for field "x"'],
    ['m x=Inf', 1, 'invalid field value "Inf" for field "x"'],
    ['m x=-Inf', 1, 'invalid field value "-Inf" for field "x"'],
    ['m x=+1', 1, 'invalid field value "+1" for field "x"'],
    ['m x=0x10', 1, 'invalid field value "0x10" for field "x"'],
    ['m x=1_000', 1, 'invalid field value "1_000" for field "x"'],
    ['m x=1"a"', 1, 'invalid field value "1\\"a\\"" for field "x"'],
    ['m x="a"b', 1, 'invalid field value "\\"a\\"b" for field "x": text after the closing quote'],
    ['m x=tru', 1, 'invalid boolean "tru" for field "x"'],
    ['m x=falsey', 1, 'invalid boolean "falsey" for field "x"'],
    ['m x=tRUE', 1, 'invalid boolean "tRUE" for field "x"'],
    ['m x=Fa', 1, 'invalid boolean "Fa" for field "x"'],
    ['m x=9223372036854775808i', 1, 'integer out of range for field "x": "9223372036854775808i"'],
    ['m x=-9223372036854775809i', 1, 'integer out of range for field "x": "-9223372036854775809i"'],
    ['m x=99999999999999999999999i', 1, 'integer out of range for field "x": "99999999999999999999999i"'],
    ['m x=18446744073709551616u', 1, 'unsigned integer out of range for field "x": "18446744073709551616u"'],
    ['m x=1e400', 1, 'float out of range for field "x": "1e400"'],
    ['m x=-1e309', 1, 'float out of range for field "x": "-1e309"'],
    ['m x="abc', 1, 'unterminated string value for field "x"'],
    ['m x="abc\\"', 1, 'unterminated string value for field "x"'],
    ['m x="abc\n\nm y=1', 1, 'unterminated string value for field "x"'],
    // Timestamps and what follows.
    ['m f=1 12a', 1, 'invalid timestamp "12a"'],
    ['m f=1 1.5', 1, 'invalid timestamp "1.5"'],
    ['m f=1 -', 1, 'invalid timestamp "-"'],
    ['m f=1 --1', 1, 'invalid timestamp "--1"'],
    ['m f=1 +1', 1, 'invalid timestamp "+1"'],
    ['m f=1 1e9', 1, 'invalid timestamp "1e9"'],
    ['m f=1 1 2', 1, 'unexpected text after the timestamp: "2"'],
    ['m f=1 1 \tx', 1, 'unexpected text after the timestamp: "x"'],
    ['m f=1\tx', 1, 'unexpected text after the fields: "x"'],
    ['m f="a"\t1', 1, 'unexpected text after the fields: "1"'],
    // Conflicts between lines, or within one.
    ['m,a=1 f=1\nm a=2', 2, 'field type conflict: "a" of measurement "m" is a field here but a tag on line 1'],
    ['m a=2\nm,a=1 f=1', 2, 'field type conflict: "a" of measurement "m" is a tag here but a field on line 1'],
    ['m,a=1 a=2', 1, 'field type conflict: "a" of measurement "m" is a field here but a tag on line 1'],
    ['m x=1i\n\nm x=1.5', 3, 'field type conflict: field "x" of measurement "m" is Float64 here but Int64 on line 1'],
    ['m x=1\nm x=1u', 2, 'field type conflict: field "x" of measurement "m" is UInt64 here but Float64 on line 1'],
    ['m x=t\nm x="t"', 2, 'field type conflict: field "x" of measurement "m" is String here but Boolean on line 1'],
    ['m x="1"\nm x=1i', 2, 'field type conflict: field "x" of measurement "m" is Int64 here but String on line 1'],
    ['m x=1i,x=1', 1, 'field type conflict: field "x" of measurement "m" is Float64 here but Int64 on line 1'],
  ];
  for (const [body, line, problem] of cases) {
    test(`${JSON.stringify(body)}: ${problem}`, () => {
      assert.equal(failure(body, line), problem);
    });
  }

  test('timestamps (× the precision) within the range of a nanosecond column, 1677-09-22 to 2262-04-11: just inside and just outside, each precision', () => {
    // [precision, the first and last values inside, in that precision]
    const edges: Array<[Precision, bigint, bigint, bigint]> = [
      ['ns', -9223286400000000000n, 9223372036854775806n, 1n],
      ['us', -9223286400000000n, 9223372036854775n, 1_000n],
      ['ms', -9223286400000n, 9223372036854n, 1_000_000n],
      ['s', -9223286400n, 9223372036n, 1_000_000_000n],
      ['m', -153721440n, 153722867n, 60_000_000_000n],
      ['h', -2562024n, 2562047n, 3_600_000_000_000n],
    ];
    const range = 'column tsdb_timestamp (TimestampNanosecond): it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16.854775806Z';
    for (const [p, min, max, f] of edges) {
      assert.deepEqual(values(one(`m f=1 ${min}\nm f=2 ${max}`, p), 'tsdb_timestamp'), [min * f, max * f], p);
      const written = (v: bigint) => (p === 'ns' ? '' : ` (written ${v} with precision ${p})`);
      for (const v of [min - 1n, max + 1n]) {
        const problem = failure(`m f=1 1\n\nm f=2 ${v}\nm f=3 3`, 3, p);
        assert.ok(problem.startsWith(`Timestamp ${v * f} (`), problem);
        assert.ok(problem.endsWith(`is out of range for ${range}${written(v)}`), problem);
      }
    }
    assert.equal(failure('m f=1 9223372036854775807', 1), `Timestamp 9223372036854775807 (2262-04-11T23:47:16.854775807Z) is out of range for ${range}`);
    assert.equal(failure('m f=1 -9223286400000000001', 1), `Timestamp -9223286400000000001 (1677-09-21T23:59:59.999999999Z) is out of range for ${range}`);
    assert.equal(failure('m f=1 9223372037', 1, 's'), `Timestamp 9223372037000000000 (2262-04-11T23:47:17Z) is out of range for ${range} (written 9223372037 with precision s)`);
  });

  test('timestamps beyond int64 (× the precision) are out of range the same way', () => {
    const range = 'is out of range for column tsdb_timestamp (TimestampNanosecond): it must be between 1677-09-22T00:00:00Z and 2262-04-11T23:47:16.854775806Z';
    assert.equal(failure('m f=1 9223372036854775808', 1), `Timestamp 9223372036854775808 (2262-04-11T23:47:16.854775808Z) ${range}`);
    assert.equal(failure('m f=1 -9223372036854775809', 1), `Timestamp -9223372036854775809 (1677-09-21T00:12:43.145224191Z) ${range}`);
    assert.match(failure('m f=1 99999999999999999999999999', 1), new RegExp(`^Timestamp 99999999999999999999999999 \\(\\+\\d+-\\d\\d-\\d\\dT[\\d:.]+Z\\) ${range.replace(/[()]/g, '\\$&')}$`));
    assert.equal(failure('m f=1 -9223372036854775807', 1, 'us'), `Timestamp -9223372036854775807000 (-290308-12-21T19:59:05.224193000Z) ${range} (written -9223372036854775807 with precision us)`);
    assert.match(failure('m f=1 2562048', 1, 'h'), /^Timestamp 9223372800000000000 \(2262-04-12T00:00:00Z\) is out of range .* \(written 2562048 with precision h\)$/);
    assert.match(failure('m f=1 -153722868', 1, 'm'), /^Timestamp -9223372080000000000 \(1677-09-21T00:12:00Z\) is out of range .* \(written -153722868 with precision m\)$/);
  });

  test('a measurement has at most MAX_COLUMNS_PER_TABLE - 1 tags and fields (its table also has the time index)', () => {
    const most = MAX_COLUMNS_PER_TABLE - 1;
    const tags = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => `${prefix}${i}=v`).join(',');
    const fields = (n: number, prefix = 'f') => Array.from({ length: n }, (_, i) => `${prefix}${i}=${i}`).join(',');
    assert.equal(one(`m,${tags(most - 1)} f=1 1`).columns.length, MAX_COLUMNS_PER_TABLE);
    assert.equal(one(`m ${fields(most)} 1`).columns.length, MAX_COLUMNS_PER_TABLE);
    const problem = `too many tags and fields in measurement "m": at most ${most} (a table has at most ${MAX_COLUMNS_PER_TABLE} columns, the time index included)`;
    assert.equal(failure(`m,${tags(most)} f=1 1`, 1), problem);
    assert.equal(failure(`m ${fields(most + 1)} 1`, 1), problem);
    assert.equal(failure(`m,${tags(10_000)} f=1 1`, 1), problem);
    // Across the lines of a request: the line that adds one column too many is named.
    assert.equal(failure(`other f=1 1\nm,${tags(4000)} f=1 1\nm,${tags(4000)} ${fields(most - 4001)} 2\nm,${tags(4000)} g=1 3`, 4), problem);
    // Through the series cache, too.
    one(`cachedwide,${tags(most - 1)} f=1 1`);
    assert.equal(failure(`cachedwide,${tags(most - 1)} f=1,g=2 1`, 1), problem.replace('"m"', '"cachedwide"'));
    assert.equal(failure(`cachedwide x=1 1\ncachedwide,${tags(most - 1)} f=1 1`, 2), problem.replace('"m"', '"cachedwide"'));
  });

  test('the line number counts blank lines, comments, CRLF and strings spanning lines', () => {
    assert.equal(failure('\n# comment\n\r\nm f=1 1\r\nm s="a\nb\nc" 2\n\n  m f=x', 9), 'invalid field value "x" for field "f"');
  });

  test('a tag of a cached series that is a field in this request', () => {
    one('cachedseries,k=v f=1 1');
    assert.equal(failure('cachedseries k=1\ncachedseries,k=v f=1 1', 2), 'field type conflict: "k" of measurement "cachedseries" is a tag here but a field on line 1');
  });

  test('long values are cut in messages', () => {
    const problem = failure(`m f=${'x'.repeat(200)}`, 1);
    assert.equal(problem, `invalid field value ${JSON.stringify(`${'x'.repeat(64)}…`)} for field "f"`);
  });

  test('the first bad line refuses the whole body', () => {
    assert.equal(failure('m f=1 1\nm f=2 2\nm f=oops 3\nm f=4 4\n', 3), 'invalid field value "oops" for field "f"');
  });
});

describe('parseLineProtocol: the cell budget (rows × columns, NULLs included)', () => {
  const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}=v`).join(',');
  const short = (measurement: string, from: number, count: number) => Array.from({ length: count }, (_, i) => `${measurement} f=1 ${from + i}`);

  test('one line with 4,000 tags, then 200,000 short lines: refused at the line that passes the budget, without room for every line', () => {
    const body = [`wide,${tags(4000)} f=1 0`, ...short('wide', 1, 200_000)].join('\n');
    const limit = ingestCellLimit(body.length);
    assert.equal(limit, INGEST_CELLS_PER_BYTE * body.length);
    // Each row has 4,002 cells (the tags, f, the time index). Sized up front for 200,001 lines, the
    // wide line alone would take 4,000 × 200,001 slots (6.4 GB); it is refused after a few thousand rows.
    const line = Math.floor(limit / 4002) + 1;
    assert.ok(line < 4000, String(line));
    assert.equal(failure(body, line), cellLimitProblem(limit, body.length));
    assert.match(cellLimitProblem(limit, body.length), /^the request decodes to more than \d+ values \(rows × columns of each table, NULLs included\), the limit for a body of \d+ bytes \(4 per byte, at least 1048576, at most 33554432\); split it into smaller requests/);
  });

  test('a body of any size may have INGEST_MIN_CELLS cells: exactly that many is accepted, one more row refused', () => {
    // 1,024 rows of 1,024 cells (1,022 tags, f and the time index): 2^20 cells.
    assert.equal(INGEST_MIN_CELLS, 1024 * 1024);
    const lines = [`atmin,${tags(1022)} f=1 0`, ...short('atmin', 1, 1023)];
    assert.ok(INGEST_CELLS_PER_BYTE * lines.join('\n').length < INGEST_MIN_CELLS);
    const t = one(lines.join('\n'));
    assert.equal(t.rowCount, 1024);
    assert.equal(t.columns.length, 1024);
    for (const c of t.columns) assert.equal(c.vector.data.length, 1024, c.name);
    assert.deepEqual(values(t, 't1021'), ['v', ...Array<null>(1023).fill(null)]);
    assert.deepEqual(values(t, 'f'), Array<number>(1024).fill(1));
    assert.match(failure([...lines, 'atmin f=1 1024'].join('\n'), 1025), /^the request decodes to more than 1048576 values/);
  });

  test('a column added late counts its NULLs in the rows before it', () => {
    // 1,100 rows of 2 cells, then a line with 1,000 new tags: 1,100,000 NULLs.
    assert.match(failure([...short('late', 0, 1100), `late,${tags(1000)} f=1 1100`].join('\n'), 1101), /^the request decodes to more than 1048576 values/);
    // With 1,000 rows before it, it fits: 1,000 × 1,000 NULLs and the rows' own cells.
    const t = one([...short('late', 0, 1000), `late,${tags(1000)} f=1 1000`].join('\n'));
    assert.equal(t.rowCount, 1001);
    assert.deepEqual(values(t, 't999'), [...Array<null>(1000).fill(null), 'v']);
  });

  test('the cells of all tables count together', () => {
    // Two tables of 512 rows × 1,024 cells: 2^20 in all.
    const a = [`ta,${tags(1022)} f=1 0`, ...short('ta', 1, 511)];
    const b = [`tb,${tags(1022)} f=1 0`, ...short('tb', 1, 511)];
    assert.deepEqual(parse([...a, ...b].join('\n')).map((t) => [t.name, t.rowCount, t.columns.length]), [['ta', 512, 1024], ['tb', 512, 1024]]);
    assert.match(failure([...a, ...b, 'ta f=1 512'].join('\n'), 1025), /^the request decodes to more than 1048576 values/);
  });

  test('past the minimum, the budget is INGEST_CELLS_PER_BYTE per byte of the body', () => {
    // 2,000 rows of 1,002 cells (2,004,000) need a body of 501,000 bytes: pad the lines with a string field.
    const pad = (n: number) => `s="${'x'.repeat(n)}"`;
    const wide = `perbyte,${tags(1000)} f=1 0`;
    const lines = (padding: number) => [wide, ...Array.from({ length: 1999 }, (_, i) => `perbyte f=1,${pad(padding)} ${i + 1}`)];
    // 1,003 cells a row with the string field: 2,006,000 cells, 501,500 bytes.
    const fits = lines(240).join('\n');
    assert.ok(INGEST_CELLS_PER_BYTE * fits.length >= 2000 * 1003, String(fits.length));
    assert.equal(one(fits).rowCount, 2000);
    const over = lines(200).join('\n');
    assert.ok(INGEST_CELLS_PER_BYTE * over.length < 2000 * 1003, String(over.length));
    const line = Math.floor((ingestCellLimit(over.length) - 1002) / 1003) + 2;
    assert.equal(failure(over, line), cellLimitProblem(ingestCellLimit(over.length), over.length));
  });

  test('the limit: INGEST_CELLS_PER_BYTE per byte, at least INGEST_MIN_CELLS, at most INGEST_MAX_CELLS', () => {
    assert.equal(ingestCellLimit(0), INGEST_MIN_CELLS);
    assert.equal(ingestCellLimit(1000), INGEST_MIN_CELLS);
    assert.equal(ingestCellLimit(1_000_000), 4_000_000);
    assert.equal(ingestCellLimit(64 * 1024 * 1024), INGEST_MAX_CELLS);
  });
});
