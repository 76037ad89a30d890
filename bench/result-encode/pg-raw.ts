/**
 * A minimal PostgreSQL wire client for the benchmark's binary-format answers: node-postgres decodes
 * every field as UTF-8 text (pg-protocol has no binary mode), which garbles binary float8 and
 * timestamp values, so the binary answer is read here as raw DataRow fields instead. It speaks just
 * what tsdb needs without a password: StartupMessage, then the extended protocol (Parse, Bind with
 * result format 1, Execute, Sync) of one statement, and keeps each row's fields as Buffers.
 */
import { connect, type Socket } from 'node:net';

export type RawRow = (Buffer | null)[];

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function cstr(s: string): Buffer {
  return Buffer.from(`${s}\0`, 'utf8');
}

export class RawPgClient {
  private chunks: Buffer[] = [];
  private have = 0;
  private wake: (() => void) | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.chunks.push(c);
      this.have += c.length;
      this.wake?.();
    });
    socket.on('error', (err) => {
      this.failure = err;
      this.wake?.();
    });
    socket.on('close', () => {
      this.failure ??= new Error('connection closed');
      this.wake?.();
    });
  }

  static async connect(host: string, port: number, user: string, database: string): Promise<RawPgClient> {
    const socket = connect({ host, port });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.setNoDelay(true);
    const c = new RawPgClient(socket);
    const params = Buffer.concat([cstr('user'), cstr(user), cstr('database'), cstr(database), Buffer.from([0])]);
    const head = Buffer.alloc(8);
    head.writeInt32BE(params.length + 8, 0);
    head.writeInt32BE(196608, 4);
    socket.write(Buffer.concat([head, params]));
    for (;;) {
      const [type, body] = await c.next();
      if (type === 'E') throw new Error(`PostgreSQL login: ${body.toString('utf8')}`);
      if (type === 'R' && body.readInt32BE(0) !== 0) throw new Error(`PostgreSQL login: authentication ${body.readInt32BE(0)} asked`);
      if (type === 'Z') return c;
    }
  }

  private async need(n: number): Promise<void> {
    while (this.have < n) {
      if (this.failure !== undefined) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
  }

  private async next(): Promise<[string, Buffer]> {
    await this.need(5);
    const len = this.chunks[0]!.readInt32BE(1);
    await this.need(1 + len);
    const buf = this.chunks[0]!;
    const type = String.fromCharCode(buf[0]!);
    const body = buf.subarray(5, 1 + len);
    const rest = buf.subarray(1 + len);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.have -= 1 + len;
    return [type, body];
  }

  /** Runs `sql` with every result column in binary format; the rows' fields as received. */
  async queryBinary(sql: string): Promise<{ fields: { name: string; oid: number }[]; rows: RawRow[] }> {
    const parse = message('P', Buffer.concat([cstr(''), cstr(sql), Buffer.from([0, 0])]));
    // Bind: portal "", statement "", no parameter formats, no parameters, one result format (binary) for all.
    const bind = message('B', Buffer.concat([cstr(''), cstr(''), Buffer.from([0, 0, 0, 0, 0, 1, 0, 1])]));
    const describe = message('D', Buffer.concat([Buffer.from('P'), cstr('')]));
    const execute = message('E', Buffer.concat([cstr(''), Buffer.from([0, 0, 0, 0])]));
    const sync = message('S', Buffer.alloc(0));
    this.socket.write(Buffer.concat([parse, bind, describe, execute, sync]));
    const fields: { name: string; oid: number }[] = [];
    const rows: RawRow[] = [];
    let error: string | undefined;
    for (;;) {
      const [type, body] = await this.next();
      if (type === 'T') {
        let at = 2;
        for (let i = 0, n = body.readInt16BE(0); i < n; i++) {
          const end = body.indexOf(0, at);
          const name = body.toString('utf8', at, end);
          at = end + 1;
          fields.push({ name, oid: body.readInt32BE(at + 6) });
          at += 18;
        }
      } else if (type === 'D') {
        const n = body.readInt16BE(0);
        const row: RawRow = new Array(n);
        let at = 2;
        for (let i = 0; i < n; i++) {
          const len = body.readInt32BE(at);
          at += 4;
          if (len < 0) row[i] = null;
          else {
            row[i] = body.subarray(at, at + len);
            at += len;
          }
        }
        rows.push(row);
      } else if (type === 'E') error = body.toString('utf8');
      else if (type === 'Z') break;
    }
    if (error !== undefined) throw new Error(`PostgreSQL: ${error}`);
    return { fields, rows };
  }

  close(): void {
    this.socket.end(message('X', Buffer.alloc(0)));
  }
}
