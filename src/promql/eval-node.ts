/**
 * The compiled form of an expression: one node per AST node, evaluated at increasing times of its
 * grid. A vector node's StepVector belongs to it and is overwritten at its next step.
 */
import { PromqlError } from './errors.js';
import type { RangeSource } from './selectors.js';
import type { SeriesTable, StepVector } from './series-table.js';

export interface VecNode {
  readonly type: 'vector';
  readonly table: SeriesTable;
  eval(t: number): StepVector;
}

export interface ScalarNode {
  readonly type: 'scalar';
  eval(t: number): number;
}

export interface StringNode {
  readonly type: 'string';
  readonly value: string;
}

export interface MatrixNode {
  readonly type: 'matrix';
  readonly source: RangeSource;
}

export type EvalNode = VecNode | ScalarNode | StringNode | MatrixNode;

export const SAME_LABELSET = 'vector cannot contain metrics with the same labelset';

/**
 * Prometheus's per-step `ContainsSameLabelset` check on a node's output: two samples with one
 * label set (e.g. after dropping `__name__`) is an error.
 */
export class SameLabelsetCheck {
  private readonly seen: number[] = [];
  private stamp = 0;

  check(out: StepVector): void {
    this.stamp++;
    const seen = this.seen;
    for (let i = 0; i < out.ids.length; i++) {
      const id = out.ids[i]!;
      if (seen[id] === this.stamp) throw new PromqlError('execution', SAME_LABELSET);
      seen[id] = this.stamp;
    }
  }
}

/**
 * The whole-range variant Prometheus applies to range-function results and unary minus: two input
 * series that ever map to one output label set is an error, whether or not at the same step.
 */
export class RangeLabelsetCheck {
  private readonly owner: number[] = [];

  claim(outId: number, inId: number): void {
    const o = this.owner[outId];
    if (o === undefined) this.owner[outId] = inId;
    else if (o !== inId) throw new PromqlError('execution', SAME_LABELSET);
  }
}
