/**
 * What a MySQL or PostgreSQL client sent, handled one item (packet, message) at a time and in order.
 * The socket is paused while an item is handled, so a client that sends faster than it is answered
 * holds only its own connection; but while an SQL statement runs (`runStatement`) the socket is read,
 * so that a disconnect is seen and cancels the statement, up to READ_AHEAD_LIMIT bytes of what the
 * client sends meanwhile.
 */
import type { ClientSocket } from './tcp-server.js';

/** How much a connection reads ahead while a statement runs. */
const READ_AHEAD_LIMIT = 1 << 20;

export class ClientInput<T> {
  private readonly items: T[] = [];
  private running = false;
  /** Bytes read while the statement runs (the socket is paused past READ_AHEAD_LIMIT). */
  private readAhead = 0;
  /** Aborts the statement running now. */
  private statement: AbortController | undefined;

  /**
   * `handle` answers one item (its errors are its own to answer); items are handled until none is
   * left or the connection is `closed`.
   */
  constructor(
    private readonly client: ClientSocket,
    private readonly closed: () => boolean,
    private readonly handle: (item: T) => Promise<void>,
  ) {}

  /** Items waiting their turn. */
  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Counts `bytes` read from the socket: while a statement runs, the socket pauses past READ_AHEAD_LIMIT. */
  read(bytes: number): void {
    if (this.running && (this.readAhead += bytes) > READ_AHEAD_LIMIT) this.client.socket.pause();
  }

  /** Handles the items in turn, unless that is under way already. */
  async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.client.socket.pause();
    try {
      while (this.items.length > 0 && !this.closed()) await this.handle(this.items.shift()!);
    } finally {
      this.running = false;
      if (!this.closed()) this.client.socket.resume();
    }
  }

  /** Runs a statement with the socket read meanwhile; `cancel` aborts its signal. */
  async runStatement<R>(run: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const controller = new AbortController();
    this.statement = controller;
    this.readAhead = 0;
    if (!this.closed() && this.items.length === 0) this.client.socket.resume();
    try {
      return await run(controller.signal);
    } finally {
      this.statement = undefined;
      if (!this.closed()) this.client.socket.pause();
    }
  }

  /** Aborts the statement running now, if any, with `reason`. */
  cancel(reason: Error): void {
    this.statement?.abort(reason);
  }
}
