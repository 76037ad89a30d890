/**
 * A procedure of the metasrv (reference internals.md §6.6): a change of the cluster run as steps,
 * each step persisted under `/__procedure__/{id}` before it acts, so that a metasrv restarted
 * midway finds it and either finishes it or undoes what it did. A procedure is its kind, its
 * current step and its data (JSON); its class knows how to go on from any step, and whether a
 * step it resumes may have been half done.
 */
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import type { Peer } from '../../catalog/table-route.js';
import type { StatusCode } from '../../common/error/status-code.js';
import type { Logger } from '../../common/logging.js';
import type { RegionId } from '../../types/region-id.js';
import type { RegionServer } from '../../types/region-server.js';
import type { DdlResult, MetaEvent } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';

/** The key prefix of persisted procedures. */
export const PROCEDURE_PREFIX = '/__procedure__/';

export function procedureKey(id: string): string {
  return `${PROCEDURE_PREFIX}${id}`;
}

/** What is stored of a procedure. */
export interface ProcedureRecord {
  readonly id: string;
  readonly kind: string;
  readonly step: string;
  readonly data: unknown;
  readonly submitted_ms: number;
}

/** What a step may do: persist progress, reach datanodes, write the catalog, tell subscribers. */
export interface ProcedureContext {
  readonly id: string;
  /** The procedure was found persisted by a restarted metasrv: its current step may be half done. */
  readonly resumed: boolean;
  readonly catalog: CatalogManager;
  readonly logger: Logger;
  /** Moves to `step` (and its data), persisted before returning; fails once the metasrv stops. */
  advance(step: string): Promise<void>;
  /** Waits for `p`, or fails as soon as the metasrv stops (what `p` does goes on unobserved, as after a crash). */
  guard<T>(p: Promise<T>): Promise<T>;
  /**
   * Calls a datanode's region server, retrying with exponential backoff while it is unreachable
   * (StorageUnavailable). An error with a code of `ok` counts as done (undefined); so does one of
   * `okWhenRepeated` when the call may have been made before (a retry, or a resumed procedure).
   */
  regionCall<T>(peer: Peer, what: string, call: (regions: RegionServer) => Promise<T>, opts?: RegionCallOptions): Promise<T | undefined>;
  /** `count` datanodes with a current lease for new regions, none of `exclude`; fails when there is none. */
  selectDatanodes(count: number, exclude?: ReadonlySet<number>): Peer[];
  /** Tells every subscriber (after a commit). */
  emit(event: MetaEvent): void;
}

export interface RegionCallOptions {
  readonly ok?: readonly StatusCode[];
  readonly okWhenRepeated?: readonly StatusCode[];
}

export abstract class Procedure<D = unknown> {
  abstract readonly kind: string;
  /**
   * Set once the procedure reached an end — done, or failed with everything undone — so its record
   * can go. A procedure that fails without it keeps its record: the next start resumes it.
   */
  finished = false;

  constructor(
    public step: string,
    public data: D,
  ) {}

  /** The locks held while it runs (from its data, so a resumed procedure takes the same ones). */
  abstract locks(): LockRequest[];

  /**
   * Regions it is creating, dropping or moving in its current step: heartbeats neither close,
   * open nor lease them meanwhile (they are not yet, or no longer, where the routes say).
   */
  operating(): RegionId[] {
    return [];
  }

  /** Runs from the current step to the end. */
  abstract execute(ctx: ProcedureContext): Promise<DdlResult>;

  /** A line for logs and messages. */
  abstract describe(): string;
}

/** The lock keys of the catalog's objects. */
export const lockKeys = {
  database: (name: string) => `database/${name}`,
  tableName: (db: string, name: string) => `table_name/${db}/${name}`,
  tableId: (id: number) => `table_id/${id}`,
};

/** The locks of a procedure that changes one existing table: its database shared, its name and id exclusive. */
export function tableLocks(info: { readonly database: string; readonly name: string; readonly table_id: number }): LockRequest[] {
  return [
    { key: lockKeys.database(info.database), exclusive: false },
    { key: lockKeys.tableName(info.database, info.name), exclusive: true },
    { key: lockKeys.tableId(info.table_id), exclusive: true },
  ];
}
