/**
 * A Flight client to be killed mid-stream (test/integration/flight.test.ts): opens a DoPut to
 * argv[2] into table argv[3] (columns host String, ts TimestampMillisecond, v Float64) and sends
 * batches of `FLIGHT_CHILD_BATCH_ROWS` rows until it is killed, never ending the stream.
 */
import { pathToFileURL } from 'node:url';
import { Float64, Table, TimestampMillisecond, Utf8, vectorFromArray } from 'apache-arrow';
import { IpcMessageEncoder } from '../../src/servers/grpc/arrow-ipc.js';
import { DESCRIPTOR_PATH } from '../../src/servers/grpc/flight-service.js';
import { FlightClient } from './flight-client.js';

export const FLIGHT_CHILD_BATCH_ROWS = 500;

function batch(n: number): Table {
  return new Table({
    host: vectorFromArray(Array.from({ length: FLIGHT_CHILD_BATCH_ROWS }, () => `h${n}`), new Utf8()),
    ts: vectorFromArray(Array.from({ length: FLIGHT_CHILD_BATCH_ROWS }, (_, i) => i), new TimestampMillisecond()),
    v: vectorFromArray(Array.from({ length: FLIGHT_CHILD_BATCH_ROWS }, (_, i) => i * 1.5), new Float64()),
  });
}

// Runs only as a program (the integration test imports the batch size).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [addr, table] = [process.argv[2]!, process.argv[3]!];
  const client = new FlightClient(addr);
  const call = client.doPutStream();
  call.on('data', () => {});
  call.on('error', (err) => {
    process.stderr.write(`DoPut failed: ${String(err)}\n`);
    process.exit(1);
  });
  const encoder = new IpcMessageEncoder();
  const first = batch(0);
  for (const m of encoder.start(first.schema)) {
    call.write({ flight_descriptor: { type: DESCRIPTOR_PATH, cmd: Buffer.alloc(0), path: [table] }, data_header: m.header, app_metadata: Buffer.alloc(0), data_body: m.body });
  }
  let n = 0;
  const writeNext = (): void => {
    n++;
    let more = true;
    for (const m of encoder.write(batch(n).batches[0]!)) {
      more = call.write({ flight_descriptor: null, data_header: m.header, app_metadata: Buffer.from(JSON.stringify({ request_id: n })), data_body: m.body });
    }
    if (more) setImmediate(writeNext);
    else call.once('drain', writeNext);
  };
  writeNext();
}
