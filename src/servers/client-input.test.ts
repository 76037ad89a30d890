/**
 * A connection's input: items handled one at a time in order with the socket paused, read again
 * while a statement runs (up to 1 MiB ahead), the statement cancelled with a reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientInput } from './client-input.js';
import type { ClientSocket } from './tcp-server.js';

/** A client socket that records whether it is paused. */
function fakeClient(): { client: ClientSocket; paused: () => boolean } {
  let paused = false;
  const socket = {
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
  };
  return { client: { socket } as unknown as ClientSocket, paused: () => paused };
}

test('items are handled one at a time, in order, with the socket paused meanwhile', async () => {
  const { client, paused } = fakeClient();
  const handled: string[] = [];
  let release!: () => void;
  const input = new ClientInput<string>(client, () => false, async (item) => {
    handled.push(`${item} (paused: ${paused()})`);
    if (item === 'a') await new Promise<void>((r) => (release = r));
  });
  input.push('a');
  const first = input.drain();
  // Pushed while `a` is handled: waits its turn; a second drain leaves it to the first.
  input.push('b');
  await input.drain();
  assert.deepEqual(handled, ['a (paused: true)']);
  assert.equal(input.length, 1);
  release();
  await first;
  assert.deepEqual(handled, ['a (paused: true)', 'b (paused: true)']);
  assert.equal(paused(), false, 'read again once every item is answered');
});

test('a statement reads ahead up to 1 MiB, then pauses; the socket is paused again after it', async () => {
  const { client, paused } = fakeClient();
  let during: boolean[] = [];
  const input = new ClientInput<number>(client, () => false, async (bytes) => {
    await input.runStatement(async () => {
      during.push(paused());
      input.read(bytes);
      during.push(paused());
    });
    during.push(paused());
  });
  input.push(1 << 20);
  await input.drain();
  assert.deepEqual(during, [false, false, true]);
  during = [];
  input.push((1 << 20) + 1);
  await input.drain();
  assert.deepEqual(during, [false, true, true]);
  // Bytes read between statements are not counted.
  input.read(10 << 20);
  assert.equal(paused(), false);
});

test('a statement with items waiting does not read ahead; cancel aborts it with the reason', async () => {
  const { client, paused } = fakeClient();
  const reason = new Error('gone');
  const seen: unknown[] = [];
  const input = new ClientInput<string>(client, () => false, async (item) => {
    if (item !== 'run') return;
    await input.runStatement(async (signal) => {
      seen.push(paused());
      input.cancel(reason);
      seen.push(signal.reason);
    });
  });
  input.push('run');
  input.push('next');
  await input.drain();
  assert.deepEqual(seen, [true, reason]);
  input.cancel(new Error('no statement runs: nothing to abort'));
});

test('a closed connection handles nothing more and is not read again', async () => {
  const { client, paused } = fakeClient();
  let closed = false;
  const handled: string[] = [];
  const input = new ClientInput<string>(client, () => closed, async (item) => {
    handled.push(item);
    closed = true;
  });
  input.push('a');
  input.push('b');
  await input.drain();
  assert.deepEqual(handled, ['a']);
  assert.equal(paused(), true);
});
