import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MessageHeader,
  RecordBatchReader,
  RecordBatchStreamWriter,
  tableFromIPC,
  tableToIPC,
  Table,
  vectorFromArray,
  Utf8,
  Dictionary,
  Int32,
  makeTable,
  Bool,
} from 'apache-arrow';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { StatusCode } from '../../common/error/status-code.js';
import { IpcMessageEncoder, IpcStreamSplitter, ipcStreamOf, messageHeaderType, noneMessageHeader, type IpcMessage } from './arrow-ipc.js';

function sample(): Table {
  return new Table({
    i: vectorFromArray(Int32Array.from([1, -2, 3, 4, 5])),
    f: vectorFromArray(Float64Array.from([0.5, Number.NaN, -1e300, 2, 3])),
    s: vectorFromArray(['a', null, 'ccc', 'déjà', ''], new Utf8()),
    b: vectorFromArray([true, false, null, true, true], new Bool()),
  });
}

function splitAll(bytes: Uint8Array, cuts: readonly number[]): { messages: IpcMessage[]; done: boolean } {
  const s = new IpcStreamSplitter();
  const messages: IpcMessage[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    s.push(bytes.subarray(at, cut), (m) => messages.push({ header: Buffer.from(m.header), body: Buffer.from(m.body) }));
    at = cut;
  }
  return { messages, done: s.done };
}

test('arrow-ipc: a stream splits into schema then batch messages, and frames back to the same table', () => {
  const t = sample();
  const bytes = tableToIPC(t, 'stream');
  const { messages, done } = splitAll(bytes, []);
  assert.equal(done, true);
  assert.deepEqual(messages.map((m) => messageHeaderType(m.header)), [MessageHeader.Schema, MessageHeader.RecordBatch]);
  assert.equal(messages[0]!.body.byteLength, 0);
  const back = tableFromIPC(ipcStreamOf(messages));
  assert.deepEqual(back.toArray().map((r) => r.toJSON()), t.toArray().map((r) => r.toJSON()));
});

test('arrow-ipc: the splitter gives the same messages at every split of the stream (one cut and two cuts)', () => {
  const t = sample();
  const bytes = tableToIPC(t, 'stream');
  const whole = splitAll(bytes, []).messages;
  for (let cut = 0; cut <= bytes.length; cut++) {
    const { messages, done } = splitAll(bytes, [cut]);
    assert.equal(done, true, `cut ${cut}`);
    assert.deepEqual(messages, whole, `cut ${cut}`);
  }
  for (let a = 0; a <= bytes.length; a += 7) {
    for (let b = a; b <= bytes.length; b += 13) assert.deepEqual(splitAll(bytes, [a, b]).messages, whole, `cuts ${a}, ${b}`);
  }
});

test('arrow-ipc: the legacy framing (no continuation marker) splits too', () => {
  const t = sample();
  const w = new RecordBatchStreamWriter({ writeLegacyIpcFormat: true });
  w.writeAll(t);
  const bytes = w.toUint8Array(true);
  const { messages } = splitAll(bytes, [3, 9]);
  assert.deepEqual(messages.map((m) => messageHeaderType(m.header)), [MessageHeader.Schema, MessageHeader.RecordBatch]);
  assert.equal(tableFromIPC(ipcStreamOf(messages)).numRows, 5);
});

test('arrow-ipc: bytes after the end-of-stream marker and undecodable headers are refused as InvalidArguments', () => {
  const bytes = tableToIPC(sample(), 'stream');
  const s = new IpcStreamSplitter();
  assert.throws(() => s.push(Buffer.concat([bytes, Buffer.from([1, 2, 3])]), () => {}), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments && /after the end/.test(e.message));
  assert.throws(() => messageHeaderType(Buffer.from([1, 2, 3])), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments);
  assert.throws(() => messageHeaderType(Buffer.alloc(64, 0xff)), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments);
});

test('arrow-ipc: a body shorter than its header says is refused; a longer one is cut to its length', () => {
  const messages = splitAll(tableToIPC(sample(), 'stream'), []).messages;
  const batch = messages[1]!;
  assert.throws(() => ipcStreamOf([messages[0]!, { header: batch.header, body: batch.body.subarray(0, batch.body.byteLength - 1) }]), /shorter/);
  const longer = ipcStreamOf([messages[0]!, { header: batch.header, body: Buffer.concat([batch.body, Buffer.alloc(16, 7)]) }]);
  assert.equal(tableFromIPC(longer).numRows, 5);
});

test('arrow-ipc: the encoder gives the schema at start and each batch as it is written; apache-arrow reads them back', () => {
  const t = new Table({ x: vectorFromArray(Float64Array.from({ length: 10_000 }, (_, i) => i * 0.5)), s: vectorFromArray(Array.from({ length: 10_000 }, (_, i) => `v${i}`), new Utf8()) });
  const enc = new IpcMessageEncoder();
  const start = enc.start(t.schema);
  assert.deepEqual(start.map((m) => messageHeaderType(m.header)), [MessageHeader.Schema]);
  const batches = [t.slice(0, 3000), t.slice(3000, 3001), t.slice(3001)].flatMap((x) => x.batches);
  const written = batches.map((b) => enc.write(b));
  for (const ms of written) assert.deepEqual(ms.map((m) => messageHeaderType(m.header)), [MessageHeader.RecordBatch]);
  const reader = RecordBatchReader.from(ipcStreamOf([...start, ...written.flat()]));
  const back = reader.readAll();
  assert.deepEqual(back.map((b) => b.numRows), [3000, 1, 6999]);
  assert.deepEqual(new Table(back).getChild('s')!.toArray(), t.getChild('s')!.toArray());
  assert.deepEqual(Array.from(new Table(back).getChild('x')!.toArray() as Float64Array), Array.from(t.getChild('x')!.toArray() as Float64Array));
});

test('arrow-ipc: dictionary-encoded columns come as a dictionary message before the batch', () => {
  const dict = vectorFromArray(['a', 'b', 'a', null], new Dictionary(new Utf8(), new Int32()));
  const t = makeTable({ d: dict.data[0]! } as never) as unknown as Table;
  const enc = new IpcMessageEncoder();
  const msgs = [...enc.start(t.schema), ...enc.write(t.batches[0]!)];
  assert.deepEqual(msgs.map((m) => messageHeaderType(m.header)), [MessageHeader.Schema, MessageHeader.DictionaryBatch, MessageHeader.RecordBatch]);
  assert.deepEqual(tableFromIPC(ipcStreamOf(msgs)).getChild('d')!.toArray(), ['a', 'b', 'a', null]);
});

test('arrow-ipc: the NONE message header decodes as NONE with an empty body', () => {
  const h = noneMessageHeader();
  assert.equal(messageHeaderType(h), MessageHeader.NONE);
});
