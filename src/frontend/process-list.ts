/**
 * The statements running in this frontend (GreptimeDB `catalog::process_manager`): each gets an id
 * when it starts and leaves the list when it ends. `SHOW [FULL] PROCESSLIST` and
 * `information_schema.process_list` read the list; `KILL <id>` (and MySQL's `KILL QUERY
 * <connection id>`, COM_PROCESS_KILL, PostgreSQL's CancelRequest) abort a statement through its
 * AbortController, which interrupts its DuckDB query (`instance.ts`).
 *
 * Permissions: with authentication off every statement is visible to and killable by everyone (all
 * users are the default user). With authentication on, a user sees and kills only the statements of
 * the same user name: the permission model (`auth/permission.ts`) has no administrator role, so there
 * is no one who may kill another user's statement (a statement is also stopped by its own client's
 * disconnect or timeout, and by the server's shutdown).
 */
import { hostname } from 'node:os';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { UserInfo } from './auth/user-provider.js';

/** The longest query text kept for a statement (`SHOW PROCESSLIST` cuts it further, FULL does not). */
export const MAX_QUERY_TEXT = 4096;

/** What a statement's client says of it when it starts. */
export interface StatementInfo {
  readonly catalog: string;
  readonly database: string;
  readonly user: UserInfo;
  /** `http`, `mysql`, `postgres`, or `internal`. */
  readonly protocol: string;
  /** The client's address (`127.0.0.1:51234`), '' when unknown. */
  readonly address: string;
  /** The MySQL connection id or PostgreSQL backend pid of its connection. */
  readonly connectionId?: number;
  readonly query: string;
}

export interface ProcessEntry extends StatementInfo {
  readonly id: number;
  /** Milliseconds since the epoch. */
  readonly startMs: number;
}

/** The reason a killed statement fails with. */
export function cancelledError(why: string): TsdbError {
  return new TsdbError(StatusCode.Cancelled, `Query execution was cancelled: ${why}`);
}

interface Running {
  readonly entry: ProcessEntry;
  readonly controller: AbortController;
}

export class ProcessList {
  private nextId = 1;
  private readonly running = new Map<number, Running>();

  /** `ownerOnly`: authentication is on, users see and kill only their own statements. */
  /**
   * `ownerOnly`: users see only their own statements. `serverAddr`: this frontend's gRPC address,
   * which qualifies the ids it shows (`<addr>/<id>`, GreptimeDB's process ids).
   */
  constructor(
    private readonly ownerOnly = false,
    readonly serverAddr: string = hostname(),
  ) {}

  /** Registers a statement; `end()` removes it (idempotent). */
  begin(info: StatementInfo, controller: AbortController): { readonly id: number; end(): void } {
    const id = this.nextId++;
    const query = info.query.length > MAX_QUERY_TEXT ? `${info.query.slice(0, MAX_QUERY_TEXT)}...` : info.query;
    this.running.set(id, { entry: { ...info, query, id, startMs: Date.now() }, controller });
    return { id, end: () => void this.running.delete(id) };
  }

  /** The statements `viewer` may see (all when undefined), by id. */
  list(viewer?: UserInfo): ProcessEntry[] {
    return [...this.running.values()].map((r) => r.entry).filter((e) => this.visible(e, viewer)).sort((a, b) => a.id - b.id);
  }

  get size(): number {
    return this.running.size;
  }

  /** `KILL <id>`: aborts the statement; an id that is not running (or not the viewer's) is an error. */
  kill(id: number, viewer?: UserInfo): void {
    const r = this.running.get(id);
    if (r === undefined || !this.visible(r.entry, viewer)) throw new TsdbError(StatusCode.InvalidArguments, `Unknown process id: ${id} (no running statement has it)`);
    r.controller.abort(cancelledError(`killed by KILL ${id}`));
  }

  /**
   * Aborts the statements of one connection (MySQL `KILL QUERY <connection id>`); returns how many.
   * A connection that runs nothing is no error (`KILL QUERY` of an idle connection).
   */
  killConnection(protocol: string, connectionId: number, why: string, viewer?: UserInfo): number {
    let n = 0;
    for (const r of this.running.values()) {
      if (r.entry.protocol !== protocol || r.entry.connectionId !== connectionId || !this.visible(r.entry, viewer)) continue;
      r.controller.abort(cancelledError(why));
      n++;
    }
    return n;
  }

  /** Aborts every statement (shutdown); returns how many. */
  killAll(why: string): number {
    for (const r of this.running.values()) r.controller.abort(cancelledError(why));
    return this.running.size;
  }

  private visible(e: ProcessEntry, viewer: UserInfo | undefined): boolean {
    return viewer === undefined || !this.ownerOnly || e.user.username === viewer.username;
  }
}
