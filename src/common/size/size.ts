/**
 * Byte sizes as written in configuration: `64MB`, `256MiB`, `1GiB`, `64M`, `512KB`, `1024`.
 * Units are binary whatever their spelling (`MB` = `MiB` = `M` = 2^20 bytes), as in GreptimeDB's
 * `ReadableSize`. Held in code as a number of bytes.
 */

/** A number of bytes. */
export type Bytes = number;

export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;
export const TIB = 1024 * GIB;
export const PIB = 1024 * TIB;

const UNIT_BYTES: Record<string, number> = {
  '': 1,
  b: 1,
  k: KIB,
  kb: KIB,
  kib: KIB,
  m: MIB,
  mb: MIB,
  mib: MIB,
  g: GIB,
  gb: GIB,
  gib: GIB,
  t: TIB,
  tb: TIB,
  tib: TIB,
  p: PIB,
  pb: PIB,
  pib: PIB,
};

const SIZE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/;

/** Parses a size; throws an Error saying what is wrong and what is expected. */
export function parseSize(text: string): Bytes {
  const s = text.trim().toLowerCase();
  const m = SIZE.exec(s);
  const unit = m ? UNIT_BYTES[m[2]!] : undefined;
  if (!m || unit === undefined) {
    throw new Error(
      `invalid size "${text}"; expected a number with an optional unit (B, KB, MB, GB, TB, PB, or KiB, MiB, GiB…), e.g. "64MB", "256MiB", "1GiB"`,
    );
  }
  const bytes = Math.floor(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes)) throw new Error(`invalid size "${text}": too large`);
  return bytes;
}

const FORMAT_UNITS: Array<[string, number]> = [
  ['PiB', PIB],
  ['TiB', TIB],
  ['GiB', GIB],
  ['MiB', MIB],
  ['KiB', KIB],
];

/** Formats bytes with the largest binary unit that divides them exactly: `64MiB`, `1GiB`, `100B`. */
export function formatSize(bytes: Bytes): string {
  if (bytes === 0) return '0B';
  for (const [unit, n] of FORMAT_UNITS) {
    if (bytes % n === 0) return `${bytes / n}${unit}`;
  }
  return `${bytes}B`;
}
