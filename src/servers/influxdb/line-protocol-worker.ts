/**
 * A worker thread of the line-protocol parse pool (`parse-pool.ts`): decodes request bodies and
 * parses them, so that parsing (about half of the work of a line-protocol write) runs beside the
 * main thread's writes. Answers each task with its tables (typed arrays transferred, not copied)
 * or its line error.
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import { LineProtocolError, parseLineProtocol, type Precision } from './line-protocol.js';
import { decodeBody, packStrings, transferablesOf, type ParseAnswer, type ParseTask } from './parse-protocol.js';

if (isMainThread || parentPort === null) throw new Error('line-protocol-worker runs in a worker thread');
const port = parentPort;

port.on('message', (task: ParseTask) => {
  let answer: ParseAnswer;
  try {
    const tables = parseLineProtocol(decodeBody(task.body), { precision: task.precision as Precision, now: BigInt(task.now) });
    answer = { id: task.id, tables, packed: packStrings(tables) };
  } catch (err) {
    if (err instanceof LineProtocolError) answer = { id: task.id, lineError: { line: err.line, problem: err.problem } };
    else answer = { id: task.id, failure: { code: (err as { code?: number }).code ?? 1003, message: err instanceof Error ? err.message : String(err) } };
  }
  port.postMessage(answer, 'tables' in answer ? transferablesOf(answer.tables, answer.packed) : []);
});
