import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Bool,
  Dictionary,
  Field,
  Float64,
  Int32,
  List,
  RecordBatchReader,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Table,
  TimestampNanosecond,
  Utf8,
  vectorFromArray,
  RecordBatch,
} from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { IpcMessageEncoder, ipcStreamOf, messageOf, noneMessageHeader, type IpcMessage } from './arrow-ipc.js';
import { ipcMessageLayoutProblem } from './ipc-message-verifier.js';

/** Messages of a stream with many kinds of fields: timestamps with a zone, dictionaries, lists, structs, metadata. */
function richMessages(): IpcMessage[] {
  const tags = vectorFromArray(['a', 'b', 'a', null], new Dictionary(new Utf8(), new Int32()));
  const table = new Table({
    ts: vectorFromArray([1, 2, 3, 4], new TimestampNanosecond('Asia/Shanghai')),
    tag: tags,
    v: vectorFromArray([1.5, null, 3, 4], new Float64()),
    ok: vectorFromArray([true, false, null, true], new Bool()),
    l: vectorFromArray([[1], [2, 3], [], null], new List(new Field('item', new Int32(), true))),
    s: vectorFromArray([{ x: 1 }, { x: 2 }, null, { x: 4 }], new Struct([new Field('x', new Int32(), true)])),
  });
  const schema = new Schema(table.schema.fields, new Map([['origin', 'test ✓']]));
  const encoder = new IpcMessageEncoder();
  return [...encoder.start(schema), ...table.batches.flatMap((b) => encoder.write(new RecordBatch(schema, b.data)))];
}

test('ipc message verifier: what apache-arrow writes passes, NONE headers included', () => {
  const messages = richMessages();
  assert.ok(messages.length >= 3, 'schema, dictionary and record batch');
  for (const m of messages) assert.equal(ipcMessageLayoutProblem(m.header), undefined);
  assert.equal(ipcMessageLayoutProblem(noneMessageHeader()), undefined);
});

/** Position of the uint32 count of a Schema's field vector in a Schema message header. */
function fieldsCountAt(header: Uint8Array): number {
  const v = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const fieldPos = (table: number, index: number): number => {
    const vtable = table - v.getInt32(table, true);
    return table + v.getUint16(vtable + 4 + 2 * index, true);
  };
  const deref = (at: number) => at + v.getUint32(at, true);
  const message = deref(0);
  const schema = deref(fieldPos(message, 2));
  return deref(fieldPos(schema, 1));
}

test('ipc message verifier: a field vector claiming a billion fields is refused before apache-arrow reads it', () => {
  const header = Buffer.from(richMessages()[0]!.header);
  const at = fieldsCountAt(header);
  assert.equal(header.readUInt32LE(at), 6);
  header.writeUInt32LE(1 << 30, at);
  assert.match(ipcMessageLayoutProblem(header) ?? '', /Schema.fields of 1073741824 elements .* is outside/);
  assert.throws(() => messageOf(header), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /undecodable message header/.test(err.message));
});

test('ipc message verifier: fields nested deeper than 64 are refused; 60 deep pass', () => {
  const nested = (depth: number) => {
    let type: Struct | Int32 = new Int32();
    for (let i = 0; i < depth; i++) type = new Struct([new Field('f', type, true)]);
    // Framed by apache-arrow's writer (the encoder would check it): continuation, length, header.
    const bytes = RecordBatchStreamWriter.writeAll(new Table(new Schema([new Field('root', type, true)]))).toUint8Array(true);
    return bytes.subarray(8, 8 + Buffer.from(bytes.buffer, bytes.byteOffset).readUInt32LE(4));
  };
  assert.equal(ipcMessageLayoutProblem(nested(60)), undefined);
  assert.match(ipcMessageLayoutProblem(nested(70)) ?? '', /nest more than 64 deep/);
});

test('ipc message verifier: after any one damaged byte, a header that passes reads (or fails) at once', () => {
  for (const original of richMessages()) {
    for (let at = 0; at < original.header.length; at++) {
      for (const value of [0x00, 0x7f, 0x80, 0xff]) {
        const header = Buffer.from(original.header);
        header[at] = value;
        let m: IpcMessage;
        try {
          messageOf(header);
          m = { header, body: original.body };
        } catch (err) {
          assert.ok(err instanceof TsdbError && err.code === StatusCode.InvalidArguments, String(err));
          continue;
        }
        const started = Date.now();
        try {
          const reader = RecordBatchReader.from(ipcStreamOf([m]));
          reader.open();
        } catch {
          // apache-arrow's own refusal is fine; what matters is that it returns.
        }
        assert.ok(Date.now() - started < 1000, `byte ${at} = ${value} took ${Date.now() - started} ms`);
      }
    }
  }
});

test('ipc message verifier: a record batch whose buffers vector runs past the header is refused', () => {
  const header = Buffer.from(richMessages().at(-1)!.header);
  // The buffers vector is the largest: grow each uint32 in turn until one is reported as a vector past the end.
  let refused = false;
  for (let at = 0; at + 4 <= header.length && !refused; at += 4) {
    const copy = Buffer.from(header);
    copy.writeUInt32LE(0x0fff_ffff, at);
    refused = /RecordBatch\.(buffers|nodes) of 268435455 elements/.test(ipcMessageLayoutProblem(copy) ?? '');
  }
  assert.ok(refused);
});
