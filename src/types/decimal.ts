/**
 * DECIMAL values as the memtable, WAL and region requests carry them: canonical text at the column's
 * scale (`-12.340` for DECIMAL(10, 3)), the text DuckDB prints for a DECIMAL and casts back exactly.
 * Literals of statements become that text here, rounded half away from zero as GreptimeDB rounds.
 */

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The canonical text of a numeric literal for DECIMAL(precision, scale); undefined when `text` is not
 * a number, `'overflow'` when its integer digits do not fit `precision - scale`.
 */
export function decimalText(text: string, precision: number, scale: number): string | undefined | 'overflow' {
  const m = NUMBER.exec(text.trim());
  if (m === null) return undefined;
  const [, sign = '', intDigits = '', fracDigits = '', exp = '0'] = m;
  if (intDigits === '' && fracDigits === '') return undefined;
  // digits × 10^(point): the value's digits and where its decimal point sits after the exponent.
  let digits = `${intDigits}${fracDigits}`.replace(/^0+(?=\d)/, '');
  const shift = Number(exp) - fracDigits.length + scale;
  if (Math.abs(shift) > 1000) return Number(exp) > 0 && /[1-9]/.test(digits) ? 'overflow' : zeroText(scale);
  let unscaled: bigint;
  if (shift >= 0) unscaled = BigInt(digits + '0'.repeat(shift));
  else {
    const cut = digits.length + shift;
    const kept = cut > 0 ? BigInt(digits.slice(0, cut)) : 0n;
    const first = cut >= 0 ? digits.charCodeAt(cut) - 48 : 0;
    unscaled = Number.isNaN(first) || first < 5 ? kept : kept + 1n;
  }
  if (unscaled >= 10n ** BigInt(precision)) return 'overflow';
  return unscaledText(sign === '-' ? -unscaled : unscaled, scale);
}

/** The canonical text of unscaled value `v` at `scale` (`-1234` at scale 2 is `-12.34`). */
export function unscaledText(v: bigint, scale: number): string {
  const digits = (v < 0n ? -v : v).toString().padStart(scale + 1, '0');
  const body = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return v < 0n ? `-${body}` : body;
}

function zeroText(scale: number): string {
  return scale === 0 ? '0' : `0.${'0'.repeat(scale)}`;
}
