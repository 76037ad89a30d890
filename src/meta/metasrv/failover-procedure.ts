/**
 * Region failover (reference internals.md §6.5, simplified for shared storage): the regions of
 * one table led by a datanode whose lease lapsed are reopened on live datanodes (chosen by the
 * selector, the lost one excluded), then the route's leaders and the datanodes' shares move in one
 * batch with the route's version bumped; subscribers told. The lost datanode cannot write any
 * more: its region leases lapsed no later than its node lease did (both count from its last
 * heartbeat), and when it comes back its heartbeats tell it to close what moved.
 *
 *   prepare          the regions still led by the lost node; a target for each
 *   open_regions     each opened on its target (from its directory on shared storage)
 *   update_metadata  route and shares moved
 *
 * A resumed failover goes on (opening a region already open counts as done). A failed one is not
 * kept: the next tick starts over from the routes, and regions it opened but did not route are
 * closed by their nodes' heartbeats.
 */
import type { DatanodeTable, Peer, TableRoute } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { regionId, type RegionId } from '../../types/region-id.js';
import type { DdlResult } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';
import { lockKeys, Procedure, type ProcedureContext } from './procedure.js';

interface Move {
  readonly region_number: number;
  readonly to: Peer;
  readonly dir: string;
}

export interface FailoverData {
  /** The datanode lost. */
  readonly from: Peer;
  readonly table_id: number;
  /** The lost node's share of the table, as it was. */
  share?: DatanodeTable;
  moves?: Move[];
}

export const FAILOVER = 'region_failover';

export class FailoverProcedure extends Procedure<FailoverData> {
  readonly kind = FAILOVER;

  static create(from: Peer, tableId: number): FailoverProcedure {
    return new FailoverProcedure('prepare', { from, table_id: tableId });
  }

  describe(): string {
    return `failover of table ${this.data.table_id}'s regions from datanode ${this.data.from.id}`;
  }

  locks(): LockRequest[] {
    return [{ key: lockKeys.tableId(this.data.table_id), exclusive: true }];
  }

  override operating(): RegionId[] {
    if (this.data.moves === undefined || (this.step !== 'open_regions' && this.step !== 'update_metadata')) return [];
    return this.data.moves.map((m) => regionId(this.data.table_id, m.region_number));
  }

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    try {
      return await this.steps(ctx);
    } catch (err) {
      // Not kept for a restart: the next failover tick tries again from what the routes say then.
      this.finished = true;
      throw err;
    }
  }

  private async steps(ctx: ProcedureContext): Promise<DdlResult> {
    for (;;) {
      switch (this.step) {
        case 'prepare':
          if (!(await this.prepare(ctx))) {
            this.finished = true;
            return {};
          }
          break;
        case 'open_regions':
          await this.openRegions(ctx);
          await ctx.advance('update_metadata');
          break;
        case 'update_metadata':
          await this.updateMetadata(ctx);
          this.finished = true;
          return {};
        default:
          throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
      }
    }
  }

  /** Chooses a target for every region the lost node still leads; false when there is none to move. */
  private async prepare(ctx: ProcedureContext): Promise<boolean> {
    const { from, table_id } = this.data;
    const route = await ctx.guard(ctx.catalog.tableRoute(table_id));
    const share = await ctx.guard(ctx.catalog.datanodeTable(from.id, table_id));
    if (route === undefined || share === undefined) return false;
    const lost = route.region_routes.filter((r) => r.leader_peer?.id === from.id);
    if (lost.length === 0) return false;
    const targets = ctx.selectDatanodes(lost.length, new Set([from.id]));
    const dirs = new Map(share.regions.map((r) => [r.region_number, r.dir]));
    this.data.share = share;
    this.data.moves = lost.map((r, i) => {
      const dir = dirs.get(r.region_number);
      if (dir === undefined) throw new TsdbError(StatusCode.Internal, `region ${r.region_number} of table ${table_id} is routed to datanode ${from.id} but not in its share`);
      return { region_number: r.region_number, to: targets[i]!, dir };
    });
    await ctx.advance('open_regions');
    return true;
  }

  private async openRegions(ctx: ProcedureContext): Promise<void> {
    const { table_id, share } = this.data;
    const moves = this.data.moves!;
    const results = await Promise.allSettled(
      moves.map((m) =>
        ctx.regionCall(m.to, `open region ${m.region_number} of table ${table_id} (failover from datanode ${this.data.from.id})`, (rs) => rs.openRegion(regionId(table_id, m.region_number), m.dir, share?.storage), {
          ok: [StatusCode.RegionAlreadyExists],
        }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  private async updateMetadata(ctx: ProcedureContext): Promise<void> {
    const { from, table_id } = this.data;
    const moves = new Map(this.data.moves!.map((m) => [m.region_number, m]));
    const route = await ctx.guard(ctx.catalog.tableRoute(table_id));
    if (route === undefined) return; // dropped meanwhile (its drop took the regions)
    const moved: Move[] = [];
    const region_routes = route.region_routes.map((r) => {
      const m = moves.get(r.region_number);
      if (m === undefined || r.leader_peer?.id !== from.id) return r;
      moved.push(m);
      return { ...r, leader_peer: { id: m.to.id, addr: m.to.addr } };
    });
    if (moved.length === 0) return;
    const next: TableRoute = { ...route, region_routes, version: route.version + 1 };
    const shares = new Map<number, DatanodeTable | undefined>();
    const movedNumbers = new Set(moved.map((m) => m.region_number));
    const all = await ctx.guard(this.sharesOf(ctx, [from.id, ...moved.map((m) => m.to.id)]));
    const old = all.get(from.id) ?? this.data.share!;
    const left = old.regions.filter((r) => !movedNumbers.has(r.region_number));
    shares.set(from.id, left.length === 0 ? undefined : { ...old, regions: left });
    for (const m of moved) {
      const current = shares.get(m.to.id) ?? all.get(m.to.id) ?? { table_id, engine: old.engine, ...(old.storage !== undefined && { storage: old.storage }), regions: [] };
      shares.set(m.to.id, { ...current, regions: [...current.regions, { region_number: m.region_number, dir: m.dir }].sort((a, b) => a.region_number - b.region_number) });
    }
    await ctx.guard(ctx.catalog.updateRoute(next, shares));
    ctx.emit({ kind: 'table_changed', table_id });
    ctx.logger.info({ table_id, from: from.id, moves: moved.map((m) => ({ region: m.region_number, to: m.to.id })), version: next.version }, `${this.describe()}: done`);
  }

  /** The current shares of this table of some datanodes. */
  private async sharesOf(ctx: ProcedureContext, nodes: readonly number[]): Promise<Map<number, DatanodeTable>> {
    const out = new Map<number, DatanodeTable>();
    for (const node of new Set(nodes)) {
      const share = await ctx.catalog.datanodeTable(node, this.data.table_id);
      if (share !== undefined) out.set(node, share);
    }
    return out;
  }
}
