/**
 * `__name__` removal for function results, memoised per input label set: the evaluator hands the
 * same label-set objects at every step and keys its output series by object identity, so returning
 * the same object for the same input saves it a lookup by value per sample.
 */
import { dropMetricName } from '../labels.js';
import type { Labels } from '../labels.js';

const cache = new WeakMap<Labels, Labels>();

export function dropName(labels: Labels): Labels {
  let out = cache.get(labels);
  if (out === undefined) {
    out = dropMetricName(labels);
    cache.set(labels, out);
  }
  return out;
}
