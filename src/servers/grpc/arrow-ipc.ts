/**
 * Arrow IPC messages as Arrow Flight carries them. The IPC stream format frames each message as
 *
 *   0xFFFFFFFF (continuation) | int32 LE metadata length M (padded to 8) | Message flatbuffer (M bytes) | body
 *
 * (before Arrow 0.15 without the continuation marker), the body being `bodyLength` bytes as the
 * Message says, and ends with a zero length. A FlightData holds one message: `data_header` is the
 * flatbuffer, without marker nor length; `data_body` the body. The splitter turns stream bytes into
 * such messages (pure: push chunks, it keeps the remainder); `ipcStreamOf` frames messages back into
 * stream bytes that apache-arrow's readers take. `IpcMessageEncoder` turns a schema and record
 * batches into messages; `IpcMessageDecoder` turns messages received one by one back into batches.
 */
import { AsyncByteQueue, type CompressionType, Message, MessageHeader, MetadataVersion, RecordBatchReader, RecordBatchStreamWriter, type RecordBatch, type Schema } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { ipcMessageLayoutProblem } from './ipc-message-verifier.js';

export interface IpcMessage {
  /** The Message flatbuffer. */
  readonly header: Uint8Array;
  readonly body: Uint8Array;
}

const CONTINUATION = 0xffffffff;

/** Splits IPC stream bytes into messages, across chunks cut anywhere. */
export class IpcStreamSplitter {
  private rest: Buffer = Buffer.alloc(0);
  private ended = false;

  /** Takes the next bytes of the stream; `onMessage` gets each message completed by them. */
  push(chunk: Uint8Array, onMessage: (m: IpcMessage) => void): void {
    const buf = this.rest.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([this.rest, chunk]);
    let pos = 0;
    while (!this.ended) {
      if (buf.length - pos < 4) break;
      let prefix = 4;
      let length = buf.readUInt32LE(pos);
      if (length === CONTINUATION) {
        if (buf.length - pos < 8) break;
        prefix = 8;
        length = buf.readUInt32LE(pos + 4);
      }
      if (length === 0) {
        // End of stream.
        this.ended = true;
        pos += prefix;
        break;
      }
      if (length > 0x7fffffff) throw invalid(`IPC message metadata length ${length} is out of range`);
      if (buf.length - pos < prefix + length) break;
      const header = buf.subarray(pos + prefix, pos + prefix + length);
      const bodyLength = messageOf(header).bodyLength;
      const end = pos + prefix + length + bodyLength;
      if (buf.length < end) break;
      onMessage({ header, body: buf.subarray(pos + prefix + length, end) });
      pos = end;
    }
    if (this.ended && pos < buf.length) throw invalid(`${buf.length - pos} bytes after the end of the IPC stream`);
    // Keep the remainder in a buffer of its own: the chunk may be reused by its writer.
    this.rest = pos === buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(pos));
  }

  /** Whether the end-of-stream marker was read. */
  get done(): boolean {
    return this.ended;
  }

  /** Bytes of a message not complete yet. */
  get pending(): number {
    return this.rest.length;
  }
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `invalid Arrow IPC data: ${message}`);
}

/** The Message a flatbuffer holds; an undecodable one is the sender's mistake. */
export function messageOf(header: Uint8Array): Message {
  if (header.byteLength < 8) throw invalid(`a message header of ${header.byteLength} bytes is too short`);
  // apache-arrow reads flatbuffers without verifying them: check what garbage would get wrong.
  const root = Buffer.from(header.buffer, header.byteOffset, header.byteLength).readUInt32LE(0);
  if (root < 4 || root > header.byteLength - 4) throw invalid('undecodable message header (root offset out of range)');
  const problem = ipcMessageLayoutProblem(header);
  if (problem !== undefined) throw invalid(`undecodable message header (${problem})`);
  try {
    const m = Message.decode(header);
    const bodyLength = m.bodyLength;
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0) throw new Error(`body length ${bodyLength}`);
    if (!(m.version >= MetadataVersion.V1 && m.version <= MetadataVersion.V5)) throw new Error(`metadata version ${String(m.version)}`);
    if (!(m.headerType >= MessageHeader.NONE && m.headerType <= MessageHeader.SparseTensor)) throw new Error(`message type ${String(m.headerType)}`);
    return m;
  } catch (err) {
    throw invalid(`undecodable message header (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The message type a header holds (MessageHeader.NONE for GreptimeDB's metadata-only messages). */
export function messageHeaderType(header: Uint8Array): MessageHeader {
  return messageOf(header).headerType;
}

/** A Message flatbuffer of type NONE with no body: what a FlightData carrying only app_metadata holds. */
export function noneMessageHeader(): Uint8Array {
  return Message.encode(new Message(0, MetadataVersion.V5, MessageHeader.NONE));
}

/** Stream bytes of `messages` (with the end-of-stream marker when `end`), for apache-arrow's readers. */
export function ipcStreamOf(messages: readonly IpcMessage[], end = true): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const m of messages) {
    const padded = (m.header.byteLength + 7) & ~7;
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32LE(CONTINUATION, 0);
    prefix.writeUInt32LE(padded, 4);
    parts.push(prefix, m.header);
    if (padded > m.header.byteLength) parts.push(Buffer.alloc(padded - m.header.byteLength));
    const bodyLength = messageOf(m.header).bodyLength;
    if (m.body.byteLength < bodyLength) throw invalid(`a message body of ${m.body.byteLength} bytes is shorter than the ${bodyLength} its header gives`);
    parts.push(m.body.byteLength === bodyLength ? m.body : m.body.subarray(0, bodyLength));
  }
  if (end) parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]));
  return Buffer.concat(parts);
}

/** Collects what an apache-arrow writer writes, for the encoder to take as it goes. */
class ChunkSink extends AsyncByteQueue {
  chunks: Uint8Array[] = [];
  override write(value: unknown): void {
    const v = value as Uint8Array;
    if (v.byteLength > 0) this.chunks.push(v);
  }
  take(): Uint8Array[] {
    const out = this.chunks;
    this.chunks = [];
    return out;
  }
}

/**
 * Encodes a schema and record batches into IPC messages with apache-arrow's RecordBatchStreamWriter:
 * `start` gives the schema message, each `write` the messages of a batch (its dictionaries, then the batch).
 */
export class IpcMessageEncoder {
  private readonly writer: RecordBatchStreamWriter;
  private readonly sink = new ChunkSink();
  private readonly splitter = new IpcStreamSplitter();

  /** `compressionType`: compress the batches' buffers (a codec with an encoder must be registered). */
  constructor(opts: { compressionType?: CompressionType } = {}) {
    this.writer = new RecordBatchStreamWriter({ autoDestroy: false, ...(opts.compressionType !== undefined && { compressionType: opts.compressionType }) });
  }

  start(schema: Schema): IpcMessage[] {
    this.writer.reset(this.sink as never, schema);
    return this.drain();
  }

  write(batch: RecordBatch): IpcMessage[] {
    this.writer.write(batch);
    return this.drain();
  }

  private drain(): IpcMessage[] {
    const out: IpcMessage[] = [];
    const chunks = this.sink.take();
    if (chunks.length === 0) return out;
    // One copy of what was written (the writer's chunks are views of the batch's own buffers).
    const bytes = Buffer.concat(chunks);
    this.splitter.push(bytes, (m) => out.push(m));
    return out;
  }
}

/**
 * Decodes a stream of IPC messages as they arrive one by one (a Flight DoGet): the Schema message
 * first, then DictionaryBatch and RecordBatch messages. Each record batch is read with the schema
 * and the dictionaries in effect (a replacement dictionary supersedes the earlier batches of its
 * id; a delta adds to them). Messages of type NONE (metadata only) are skipped. What is not such a
 * stream is InvalidArguments.
 */
export class IpcMessageDecoder {
  private schemaMessage: IpcMessage | undefined;
  private decodedSchema: Schema | undefined;
  private readonly dictionaries: IpcMessage[] = [];

  /** The schema, once its message arrived. */
  get schema(): Schema | undefined {
    return this.decodedSchema;
  }

  /** Takes the next message; gives the record batches it completes (none for a schema or a dictionary). */
  push(m: IpcMessage): RecordBatch[] {
    const message = messageOf(m.header);
    const type = message.headerType;
    if (type === MessageHeader.NONE) return [];
    if (this.schemaMessage === undefined) {
      if (type !== MessageHeader.Schema) throw invalid(`expected a Schema message first, got ${MessageHeader[type] ?? type}`);
      this.decodedSchema = readAll([m], (reader) => reader.schema);
      this.schemaMessage = m;
      return [];
    }
    if (type === MessageHeader.DictionaryBatch) {
      const dict = message.header() as { id: number; isDelta: boolean } | null;
      if (dict !== null && !dict.isDelta) {
        for (let k = this.dictionaries.length - 1; k >= 0; k--) {
          if ((messageOf(this.dictionaries[k]!.header).header() as { id: number } | null)?.id === dict.id) this.dictionaries.splice(k, 1);
        }
      }
      this.dictionaries.push(m);
      return [];
    }
    if (type !== MessageHeader.RecordBatch) throw invalid(`expected a RecordBatch message, got ${MessageHeader[type] ?? type}`);
    return readAll([this.schemaMessage, ...this.dictionaries, m], (reader) => reader.readAll());
  }
}

type SyncReader = ReturnType<typeof syncReader>;
const syncReader = (bytes: Uint8Array) => RecordBatchReader.from(bytes);

function readAll<T>(messages: readonly IpcMessage[], read: (reader: SyncReader) => T): T {
  try {
    const reader = syncReader(ipcStreamOf(messages));
    reader.open();
    return read(reader);
  } catch (err) {
    if (err instanceof TsdbError) throw err;
    throw invalid(`undecodable message (${err instanceof Error ? err.message : String(err)})`);
  }
}
