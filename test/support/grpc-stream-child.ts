/**
 * A gRPC client to be killed mid-stream (test/integration/grpc.test.ts): opens a HandleRequests
 * stream to argv[2] and writes row inserts of `ROWS_PER_MESSAGE` rows into table argv[3] until it
 * is killed, never ending the stream.
 */
import * as grpc from '@grpc/grpc-js';
import { greptimeClients } from '../../src/servers/grpc/protos.js';
import { cpuRows, ROWS_PER_MESSAGE } from './greptime-grpc.js';

const [addr, table] = [process.argv[2]!, process.argv[3]!];
const { GreptimeDatabase } = greptimeClients();
const db = new GreptimeDatabase(addr, grpc.credentials.createInsecure()) as unknown as Record<string, Function>;
const call = db['HandleRequests']!(new grpc.Metadata(), () => {}) as grpc.ClientWritableStream<unknown>;
let message = 0;
const writeNext = (): void => {
  const rows = Array.from({ length: ROWS_PER_MESSAGE }, (_, i) => [`h${message}`, i, i] as const);
  message++;
  if (call.write(cpuRows(table, rows))) setImmediate(writeNext);
  else call.once('drain', writeNext);
};
writeNext();
