import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { rewriteSessionFunctions, versionOf } from './session-functions.js';

const call = (name: string, children: unknown[] = []) => ({ class: 'FUNCTION', type: 'FUNCTION', alias: '', query_location: 0, function_name: name, schema: '', children, filter: null, order_bys: { type: 'ORDER_MODIFIER', orders: [] }, distinct: false, is_operator: false, export_state: false, catalog: '' });
const column = (name: string) => ({ class: 'COLUMN_REF', type: 'COLUMN_REF', alias: '', query_location: 0, column_names: [name] });
const str = (value: string) => ({ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value } });
const select = (items: unknown[]) => ({ type: 'SELECT_NODE', select_list: items });
const values = (tree: { select_list: Array<{ alias: string; value?: { value: string } }> }) => tree.select_list.map((i) => [i.alias, i.value?.value]);

test('the user functions answer the logged-in user, named as written', () => {
  const tree = select([call('user'), call('current_user'), column('current_user'), column('session_user'), call('SYSTEM_USER')]);
  assert.equal(rewriteSessionFunctions(tree, { database: 'public', timezone: 'UTC', user: 'alice' }), true);
  assert.deepEqual(values(tree as never), [['user()', 'alice'], ['current_user()', 'alice'], ['current_user', 'alice'], ['session_user', 'alice'], ['SYSTEM_USER()', 'alice']]);
});

test('a column named current_user of a table the query reads stays a column', () => {
  const tree = select([column('current_user')]);
  assert.equal(rewriteSessionFunctions(tree, { database: 'public', timezone: 'UTC', user: 'alice' }, new Set(['current_user'])), false);
});

test('version() answers per protocol as GreptimeDB; @@version is the MySQL version', () => {
  assert.match(versionOf('mysql'), /^8\.4\.2-tsdb-/);
  assert.match(versionOf('postgres'), /^PostgreSQL 16\.3 tsdb /);
  assert.doesNotMatch(versionOf('http'), /tsdb/);
  const tree = select([call('version'), call('__tsdb_variable', [str('@@version')]), call('__tsdb_variable', [str('@@session.time_zone')])]);
  rewriteSessionFunctions(tree, { database: 'public', timezone: '+08:00', channel: 'http' });
  assert.deepEqual(values(tree as never), [['version()', versionOf('http')], ['@@version', versionOf('mysql')], ['@@session.time_zone', '+08:00']]);
});

test('an unknown system variable is the user mistake MySQL reports', () => {
  assert.throws(() => rewriteSessionFunctions(select([call('__tsdb_variable', [str('@@nope')])]), { database: 'public', timezone: 'UTC' }), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && /Unknown system variable 'nope'/.test(e.message));
});
