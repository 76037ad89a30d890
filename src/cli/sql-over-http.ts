/**
 * The SQL client of `tsdb cli export|import`: one statement per `POST /v1/sql` (GreptimeDB's HTTP
 * API), with basic authentication and no deadline of its own (a large table's COPY may run for
 * minutes: `x-tsdb-timeout: 0` unless `--timeout` says otherwise). Built on node:http rather than
 * fetch, whose response-header timeout (5 minutes) would end a long COPY.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface SqlClientOptions {
  /** `host:port` or a URL (`http://…`, `https://…`). */
  readonly addr: string;
  /** `user:password`. */
  readonly authBasic?: string;
  /** The `x-tsdb-timeout` of each statement (`0` = none). */
  readonly timeout?: string;
}

/** A failed statement: the server's status code and message. */
export class SqlError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export type Row = readonly unknown[];

export class SqlOverHttp {
  private readonly url: URL;

  constructor(private readonly opts: SqlClientOptions) {
    this.url = new URL(/^https?:\/\//.test(opts.addr) ? opts.addr : `http://${opts.addr}`);
  }

  /** Runs `sql` in database `db`: the rows of a query, or `affected` rows of anything else. */
  async run(sql: string, db = 'public'): Promise<{ rows: Row[]; affected: number }> {
    const url = new URL('/v1/sql', this.url);
    url.searchParams.set('db', db);
    const body = new URLSearchParams({ sql }).toString();
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(body)),
      'x-tsdb-timeout': this.opts.timeout ?? '0',
    };
    if (this.opts.authBasic !== undefined) headers['authorization'] = `Basic ${Buffer.from(this.opts.authBasic).toString('base64')}`;
    const text = await new Promise<string>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'POST', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      });
      req.on('error', (err) => reject(new Error(`cannot reach ${this.url.host}: ${err.message}`)));
      req.end(body);
    });
    let json: { code?: number; error?: string; output?: Array<{ affectedrows?: number; records?: { rows: Row[] } }> };
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      throw new Error(`unexpected answer from ${this.url.host}: ${text.slice(0, 200)}`);
    }
    if (json.code !== 0 || json.output === undefined) throw new SqlError(json.code ?? -1, json.error ?? text.slice(0, 200));
    const out = json.output[0];
    return { rows: out?.records?.rows ?? [], affected: out?.affectedrows ?? 0 };
  }
}
