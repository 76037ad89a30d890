/**
 * RegionId = table_id << 32 | region_number (GreptimeDB). A bigint: table ids and region numbers
 * are u32 each, so a region id does not fit a JS number in general.
 */
export type RegionId = bigint;

export function regionId(tableId: number, regionNumber: number): RegionId {
  if (!Number.isInteger(tableId) || tableId < 0 || tableId > 0xffff_ffff) throw new RangeError(`table id ${tableId} is not a u32`);
  if (!Number.isInteger(regionNumber) || regionNumber < 0 || regionNumber > 0xffff_ffff) {
    throw new RangeError(`region number ${regionNumber} is not a u32`);
  }
  return (BigInt(tableId) << 32n) | BigInt(regionNumber);
}

export function tableIdOf(id: RegionId): number {
  return Number(id >> 32n);
}

export function regionNumberOf(id: RegionId): number {
  return Number(id & 0xffff_ffffn);
}

/** `4398046511104(1024, 0)` — the id with its table id and region number, for messages. */
export function formatRegionId(id: RegionId): string {
  return `${id}(${tableIdOf(id)}, ${regionNumberOf(id)})`;
}

/** The directory name of a region: `{table_id}_{region_number:010}` (GreptimeDB layout). */
export function regionDirName(id: RegionId): string {
  return `${tableIdOf(id)}_${String(regionNumberOf(id)).padStart(10, '0')}`;
}
