/**
 * Binary operators as Prometheus 2.42 evaluates them: scalar–scalar, vector–scalar and
 * vector–vector with on/ignoring, group_left/group_right and the set operators; comparison filters
 * or answers 0/1 with `bool`; arithmetic drops `__name__`; Go's math.Mod/Pow special cases and Atan2.
 */
import { METRIC_NAME, type BinaryOp, type VectorMatching } from './ast.js';
import { PromqlError } from './errors.js';
import type { EvalState } from './eval-state.js';
import { SameLabelsetCheck, type ScalarNode, type VecNode } from './eval-node.js';
import { goLabelsString } from './go-format.js';
import { goAtan2, goPow } from './go-math.js';
import { dropMetricName, getLabel, type Label, type Labels } from './labels.js';
import { SeriesTable, StepVector } from './series-table.js';

export function isComparison(op: BinaryOp): boolean {
  return op === '==' || op === '!=' || op === '>' || op === '<' || op === '>=' || op === '<=';
}

/** Prometheus's shouldDropMetricName: arithmetic except atan2. */
function dropsName(op: BinaryOp): boolean {
  return op === '+' || op === '-' || op === '*' || op === '/' || op === '%' || op === '^';
}

/** Arithmetic value (comparisons: 0/1, as scalarBinop). */
export function scalarBinop(op: BinaryOp, l: number, r: number): number {
  switch (op) {
    case '+':
      return l + r;
    case '-':
      return l - r;
    case '*':
      return l * r;
    case '/':
      return l / r;
    case '%':
      return l % r; // JS % is C fmod, as Go's math.Mod
    case '^':
      return goPow(l, r);
    case 'atan2':
      return goAtan2(l, r);
    case '==':
      return l === r ? 1 : 0;
    case '!=':
      return l !== r ? 1 : 0;
    case '>':
      return l > r ? 1 : 0;
    case '<':
      return l < r ? 1 : 0;
    case '>=':
      return l >= r ? 1 : 0;
    case '<=':
      return l <= r ? 1 : 0;
    default:
      throw new PromqlError('bad_data', `operator "${op}" not allowed for Scalar operations`);
  }
}

/** Whether a comparison holds (vectorElemBinop's keep). */
function compare(op: BinaryOp, l: number, r: number): boolean {
  switch (op) {
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    case '>':
      return l > r;
    case '<':
      return l < r;
    case '>=':
      return l >= r;
    default:
      return l <= r;
  }
}

export class ScalarBinaryNode implements ScalarNode {
  readonly type = 'scalar';

  constructor(
    private readonly op: BinaryOp,
    private readonly lhs: ScalarNode,
    private readonly rhs: ScalarNode,
  ) {}

  eval(t: number): number {
    return scalarBinop(this.op, this.lhs.eval(t), this.rhs.eval(t));
  }
}

/** vector op scalar (or scalar op vector: `swap`). */
export class VectorScalarNode implements VecNode {
  readonly type = 'vector';
  readonly table = new SeriesTable();
  private readonly out = new StepVector(this.table);
  private readonly outIdOf: number[] = [];
  private readonly dup = new SameLabelsetCheck();
  private readonly dropName: boolean;
  private readonly cmp: boolean;

  constructor(
    private readonly op: BinaryOp,
    private readonly vec: VecNode,
    private readonly scalar: ScalarNode,
    private readonly swap: boolean,
    private readonly returnBool: boolean,
    private readonly state: EvalState,
  ) {
    this.cmp = isComparison(op);
    this.dropName = dropsName(op) || returnBool;
  }

  eval(t: number): StepVector {
    // Prometheus evaluates the operands in order: lhs first.
    let s: number;
    let v: StepVector;
    if (this.swap) {
      s = this.scalar.eval(t);
      v = this.vec.eval(t);
    } else {
      v = this.vec.eval(t);
      s = this.scalar.eval(t);
    }
    const out = this.out;
    out.clear();
    const op = this.op;
    for (let i = 0; i < v.ids.length; i++) {
      const x = v.vals[i]!;
      const l = this.swap ? s : x;
      const r = this.swap ? x : s;
      let value: number;
      if (this.cmp) {
        const keep = compare(op, l, r);
        if (this.returnBool) value = keep ? 1 : 0;
        else if (!keep) continue;
        else value = x;
      } else {
        value = scalarBinop(op, l, r);
      }
      out.push(this.outId(v.table, v.ids[i]!), value);
    }
    this.dup.check(out);
    this.state.add(out.length);
    return out;
  }

  private outId(table: SeriesTable, id: number): number {
    let o = this.outIdOf[id];
    if (o === undefined) {
      const labels = table.labels[id]!;
      o = this.table.intern(this.dropName ? dropMetricName(labels) : labels);
      this.outIdOf[id] = o;
    }
    return o;
  }
}

/** The label-set part two series must share to match (Prometheus's signatureFunc). */
function signature(labels: Labels, on: boolean, names: ReadonlySet<string>): string {
  let s = '';
  for (const l of labels) {
    const listed = names.has(l.name);
    if (on ? listed : !listed && l.name !== METRIC_NAME) s += `${l.name}\u0000${l.value}\u0001`;
  }
  return s;
}

/** labels.MatchLabels: the matching labels of a series, for error messages. */
function matchLabels(labels: Labels, on: boolean, names: ReadonlySet<string>): Labels {
  return labels.filter((l) => (on ? names.has(l.name) : !names.has(l.name) && l.name !== METRIC_NAME));
}

const DEFAULT_MATCHING: VectorMatching = { card: 'one-to-one', on: false, labels: [], include: [] };
const SET_MATCHING: VectorMatching = { card: 'many-to-many', on: false, labels: [], include: [] };

export class VectorBinaryNode implements VecNode {
  readonly type = 'vector';
  readonly table = new SeriesTable();
  private readonly out = new StepVector(this.table);
  private readonly matching: VectorMatching;
  private readonly names: ReadonlySet<string>;
  private readonly lsig: string[] = [];
  private readonly rsig: string[] = [];
  /** For the set operators the output ids are the inputs' interned; per side: input id → output id. */
  private readonly lOut: number[] = [];
  private readonly rOut: number[] = [];
  /** Result label sets by (many-side id, one-side id). */
  private readonly resultIds: (Map<number, number> | undefined)[] = [];
  private readonly dup = new SameLabelsetCheck();
  private readonly sigs = new Map<string, number>();
  private readonly matched = new Map<string, Set<number> | null>();
  private readonly set: boolean;
  private readonly cmp: boolean;

  constructor(
    private readonly op: BinaryOp,
    private readonly lhs: VecNode,
    private readonly rhs: VecNode,
    matching: VectorMatching | undefined,
    private readonly returnBool: boolean,
    private readonly state: EvalState,
  ) {
    this.set = op === 'and' || op === 'or' || op === 'unless';
    this.cmp = isComparison(op);
    this.matching = matching ?? (this.set ? SET_MATCHING : DEFAULT_MATCHING);
    this.names = new Set(this.matching.labels);
  }

  private sig(cache: string[], table: SeriesTable, id: number): string {
    let s = cache[id];
    if (s === undefined) {
      s = signature(table.labels[id]!, this.matching.on, this.names);
      cache[id] = s;
    }
    return s;
  }

  private passId(cache: number[], table: SeriesTable, id: number): number {
    let o = cache[id];
    if (o === undefined) {
      o = this.table.intern(table.labels[id]!);
      cache[id] = o;
    }
    return o;
  }

  eval(t: number): StepVector {
    const l = this.lhs.eval(t);
    const r = this.rhs.eval(t);
    const out = this.out;
    out.clear();
    if (this.set) this.setOp(l, r);
    else this.arith(l, r);
    this.dup.check(out);
    this.state.add(out.length);
    return out;
  }

  private setOp(l: StepVector, r: StepVector): void {
    const out = this.out;
    const sigs = this.sigs;
    sigs.clear();
    switch (this.op) {
      case 'and':
        if (l.length === 0 || r.length === 0) return;
        for (let j = 0; j < r.ids.length; j++) sigs.set(this.sig(this.rsig, r.table, r.ids[j]!), j);
        for (let i = 0; i < l.ids.length; i++) {
          if (sigs.has(this.sig(this.lsig, l.table, l.ids[i]!))) out.push(this.passId(this.lOut, l.table, l.ids[i]!), l.vals[i]!);
        }
        return;
      case 'or':
        for (let i = 0; i < l.ids.length; i++) {
          if (r.length > 0) sigs.set(this.sig(this.lsig, l.table, l.ids[i]!), i);
          out.push(this.passId(this.lOut, l.table, l.ids[i]!), l.vals[i]!);
        }
        for (let j = 0; j < r.ids.length; j++) {
          if (l.length === 0 || !sigs.has(this.sig(this.rsig, r.table, r.ids[j]!))) out.push(this.passId(this.rOut, r.table, r.ids[j]!), r.vals[j]!);
        }
        return;
      default: // unless
        if (r.length > 0) for (let j = 0; j < r.ids.length; j++) sigs.set(this.sig(this.rsig, r.table, r.ids[j]!), j);
        for (let i = 0; i < l.ids.length; i++) {
          if (r.length === 0 || !sigs.has(this.sig(this.lsig, l.table, l.ids[i]!))) out.push(this.passId(this.lOut, l.table, l.ids[i]!), l.vals[i]!);
        }
    }
  }

  private arith(lv: StepVector, rv: StepVector): void {
    if (lv.length === 0 || rv.length === 0) return;
    const m = this.matching;
    const oneToMany = m.card === 'one-to-many';
    // The "many" side drives the loop; the "one" side is looked up by signature.
    const many = oneToMany ? rv : lv;
    const one = oneToMany ? lv : rv;
    const manySig = oneToMany ? this.rsig : this.lsig;
    const oneSig = oneToMany ? this.lsig : this.rsig;
    const sigs = this.sigs;
    sigs.clear();
    for (let j = 0; j < one.ids.length; j++) {
      const s = this.sig(oneSig, one.table, one.ids[j]!);
      const prev = sigs.get(s);
      if (prev !== undefined) {
        const labels = one.table.labels[one.ids[j]!]!;
        const dupl = one.table.labels[one.ids[prev]!]!;
        throw new PromqlError(
          'execution',
          `found duplicate series for the match group ${goLabelsString(matchLabels(labels, m.on, this.names))} on the ${oneToMany ? 'left' : 'right'} hand-side of the operation: [${goLabelsString(labels)}, ${goLabelsString(dupl)}];many-to-many matching not allowed: matching labels must be unique on one side`,
        );
      }
      sigs.set(s, j);
    }
    const matched = this.matched;
    matched.clear();
    const out = this.out;
    for (let i = 0; i < many.ids.length; i++) {
      const s = this.sig(manySig, many.table, many.ids[i]!);
      const j = sigs.get(s);
      if (j === undefined) continue;
      let vl = many.vals[i]!;
      let vr = one.vals[j]!;
      if (oneToMany) [vl, vr] = [vr, vl];
      let value: number;
      if (this.cmp) {
        const keep = compare(this.op, vl, vr);
        if (this.returnBool) value = keep ? 1 : 0;
        else if (!keep) continue;
        else value = vl;
      } else {
        value = scalarBinop(this.op, vl, vr);
      }
      const outId = this.resultId(many, many.ids[i]!, one, one.ids[j]!);
      if (m.card === 'one-to-one') {
        if (matched.has(s)) throw new PromqlError('execution', 'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)');
        matched.set(s, null);
      } else {
        let ins = matched.get(s);
        if (ins === undefined || ins === null) {
          ins = new Set();
          matched.set(s, ins);
        } else if (ins.has(outId)) {
          throw new PromqlError('execution', 'multiple matches for labels: grouping labels must ensure unique matches');
        }
        ins.add(outId);
      }
      out.push(outId, value);
    }
  }

  private resultId(many: StepVector, mid: number, one: StepVector, oid: number): number {
    let byOne = this.resultIds[mid];
    if (byOne === undefined) {
      byOne = new Map();
      this.resultIds[mid] = byOne;
    }
    let id = byOne.get(oid);
    if (id === undefined) {
      id = this.table.intern(this.resultLabels(many.table.labels[mid]!, one.table.labels[oid]!));
      byOne.set(oid, id);
    }
    return id;
  }

  /** Prometheus's resultMetric. */
  private resultLabels(lhs: Labels, rhs: Labels): Labels {
    const m = this.matching;
    let out: Label[] = [...lhs];
    if (dropsName(this.op)) out = out.filter((l) => l.name !== METRIC_NAME);
    if (m.card === 'one-to-one') out = out.filter((l) => (m.on ? this.names.has(l.name) : !this.names.has(l.name)));
    if (m.include.length > 0) {
      const include = new Set(m.include);
      out = out.filter((l) => !include.has(l.name));
      for (const name of include) {
        const v = getLabel(rhs, name);
        if (v !== '') out.push({ name, value: v });
      }
      out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    if (this.returnBool) out = out.filter((l) => l.name !== METRIC_NAME);
    return out;
  }
}
