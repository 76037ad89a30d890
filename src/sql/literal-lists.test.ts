import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldLiteralLists, LIST_MARKER_PREFIX, mapElements, parseFoldedSql, stringValue, unfoldLiteralLists } from './literal-lists.js';

const ints = (n: number, from = 0) => Array.from({ length: n }, (_, i) => String(from + i)).join(', ');

test('an IN / NOT IN list of at least `min` literals becomes a marker; the text around it is kept; unfolding gives the text back', () => {
  const sql = `SELECT count(*) FROM t WHERE v IN (${ints(5)}) AND w NOT IN( 'a', 'b''c' ,'d' , -1.5e3, .5 ) AND x in (1, 2)`;
  const folded = foldLiteralLists(sql, 5)!;
  assert.equal(folded.lists.size, 2);
  const [a, b] = [...folded.lists.values()];
  assert.equal(folded.text, `SELECT count(*) FROM t WHERE v IN (${a!.marker}) AND w NOT IN( ${b!.marker} ) AND x in (1, 2)`);
  assert.ok(a!.marker.startsWith(LIST_MARKER_PREFIX) && /^[a-z0-9_]+$/.test(a!.marker), 'an identifier DuckDB writes unquoted');
  assert.deepEqual({ ...a!, marker: '' }, { marker: '', source: ints(5), elements: 5, strings: 0, integers: 5 });
  assert.deepEqual({ ...b!, marker: '' }, { marker: '', source: "'a', 'b''c' ,'d' , -1.5e3, .5", elements: 5, strings: 3, integers: 0 });
  assert.equal(unfoldLiteralLists(folded.text, folded.lists), sql);
  assert.equal(unfoldLiteralLists(`x IN ("${a!.marker}")`, folded.lists), `x IN (${ints(5)})`, 'as DuckDB may quote it');
});

test('short lists, and statements without IN lists, are left alone', () => {
  assert.equal(foldLiteralLists(`SELECT * FROM t WHERE v IN (${ints(999)})`), undefined);
  assert.notEqual(foldLiteralLists(`SELECT * FROM t WHERE v IN (${ints(1000)})`), undefined);
  assert.equal(foldLiteralLists(`INSERT INTO t VALUES ${Array.from({ length: 5000 }, (_, i) => `(${i}, 'in (1)')`).join(', ')}`), undefined);
});

test('only lists of plain literals are folded: no expression, cast, NULL, comment, parameter, hex, `+` or `_` among them', () => {
  for (const odd of ['v', 'NULL', "'a'::VARCHAR", '1 + 1', '(1)', '+1', '- 1', '0x1F', "X'00'", '1_000', '1e', '1.2.3', '$1', '?', '/* c */ 1', '1 -- c\n', "'a' 'b'", "E'a'", 'read_text(\'/etc/passwd\')', "'a\0b'"]) {
    const sql = `SELECT * FROM t WHERE v IN (${ints(10)}, ${odd}, ${ints(10)})`;
    assert.equal(foldLiteralLists(sql, 5), undefined, odd);
  }
  assert.equal(foldLiteralLists(`SELECT * FROM t WHERE v IN (${ints(10)},)`, 5), undefined, 'a trailing comma');
  assert.equal(foldLiteralLists(`SELECT * FROM t WHERE v IN (SELECT 1 UNION SELECT ${ints(10)})`, 5), undefined);
  assert.equal(foldLiteralLists(`SELECT * FROM t WHERE min(${ints(10)}) > 0 OR join (${ints(10)})`, 5), undefined, 'IN must be a word');
});

test('integers are told from other numbers as DuckDB types them: BIGINT range, no fraction or exponent', () => {
  const lists = (elements: string) => [...foldLiteralLists(`SELECT 1 WHERE v IN (${elements})`, 1)!.lists.values()][0]!;
  assert.equal(lists('9223372036854775807, -9223372036854775808, 007, -0').integers, 4);
  assert.equal(lists('9223372036854775808, -9223372036854775809, 1.0, 1e3, 5., 99999999999999999999').integers, 0);
});

test('lists inside strings, quoted identifiers, comments and dollar-quoted strings are not folded; later ones are', () => {
  const list = `IN (${ints(10)})`;
  for (const wrap of [`'${list}'`, `"${list}"`, `\`${list}\``, `-- ${list}\n`, `/* /* ${list} */ */`, `$$${list}$$`, `$t$${list}$t$`]) {
    const sql = `SELECT ${wrap}, 1 FROM t WHERE v ${list}`;
    const folded = foldLiteralLists(sql, 5)!;
    assert.equal(folded.lists.size, 1, wrap);
    assert.equal(folded.text, `SELECT ${wrap}, 1 FROM t WHERE v IN (${[...folded.lists.keys()][0]})`, wrap);
  }
  assert.equal(foldLiteralLists(`SELECT 'it''s ${list}'`, 5), undefined);
  assert.equal(foldLiteralLists(`SELECT 1 /* ${list}`, 5), undefined, 'an unterminated comment');
});

test('mapElements gives each element with its kind, in order, and yields to the event loop on long lists', async () => {
  const folded = foldLiteralLists(`SELECT 1 WHERE v IN (1,'a''b' ,\n-2.5, 9223372036854775808)`, 1)!;
  const list = [...folded.lists.values()][0]!;
  const seen: string[] = [];
  assert.equal(await mapElements(list, (kind, text) => (seen.push(`${kind}:${text}`), text.toUpperCase())), "1, 'A''B', -2.5, 9223372036854775808");
  assert.deepEqual(seen, ['integer:1', "string:'a''b'", 'number:-2.5', 'number:9223372036854775808']);
  assert.equal(stringValue("'a''b'"), "a'b");

  const big = [...foldLiteralLists(`SELECT 1 WHERE v IN (${Array.from({ length: 30_000 }, (_, i) => `'2024-01-01 00:00:${String(i % 60).padStart(2, '0')}'`).join(',')})`, 1)!.lists.values()][0]!;
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const slow = (_: string, text: string) => {
    const until = performance.now() + 0.05;
    while (performance.now() < until);
    return text;
  };
  const out = await mapElements(big, slow);
  clearInterval(timer);
  assert.equal(out, big.source.replaceAll("',", "', "));
  assert.ok(ticks > 10, `the event loop ran during the ~1.5 s of work (${ticks} timer ticks)`);
});

test('parseFoldedSql: queries, EXPLAIN, INSERT and DELETE keep their lists folded; any other statement holding one is parsed as written', () => {
  const list = `(${ints(1000)})`;
  for (const sql of [`SELECT * FROM t WHERE v IN ${list}`, `EXPLAIN SELECT * FROM t WHERE v IN ${list}`, `INSERT INTO t SELECT * FROM s WHERE v IN ${list}`, `DELETE FROM t WHERE v NOT IN ${list}`]) {
    const { statements, lists } = parseFoldedSql(sql);
    assert.equal(lists?.size, 1, sql);
    assert.ok(statements[0]!.text.includes(LIST_MARKER_PREFIX) && statements[0]!.text.length < 200, sql);
  }
  const show = `SHOW TABLES WHERE Tables IN (${Array.from({ length: 1000 }, (_, i) => `'t${i}'`).join(',')})`;
  const parsed = parseFoldedSql(`SELECT 1; ${show}`);
  assert.equal(parsed.lists, undefined);
  assert.equal(parsed.statements[1]!.text, show);
  assert.equal(parseFoldedSql('SELECT 1').lists, undefined);
  // A syntax error is the text's own, positions included.
  assert.throws(() => parseFoldedSql(`SELECT 1 FROM t WHERE v IN ${list}; CREATE TABLE`), /found: EOF/);
  assert.throws(() => parseFoldedSql(`INSERT INTO t VALUES ((1 IN ${list})) x`), (e: Error) => /Line: 1, Column: 4\d{3}/.test(e.message));
});
