/**
 * Go 1.19's `sort.Sort` (pattern-defeating quicksort), reproduced step for step. Prometheus 2.42
 * (built with Go 1.19) orders `sort()`/`sort_desc()` results and histogram buckets with it; the
 * algorithm is not stable and its comparators are not strict weak orders when NaN is involved, so
 * only the same sequence of comparisons and swaps gives the same order for ties and NaNs.
 */

export type Less = (i: number, j: number) => boolean;
export type Swap = (i: number, j: number) => void;

const UNKNOWN = 0;
const INCREASING = 1;
const DECREASING = 2;

/** Sorts indices [0, n) with Go's `sort.Sort` sequence of `less`/`swap` calls. */
export function goSort(n: number, less: Less, swap: Swap): void {
  if (n <= 1) return;
  new GoSorter(less, swap).pdqsort(0, n, bitLen(n));
}

/** Sorts an array in place with Go's `sort.Sort` order for `less` on elements. */
export function goSortArray<T>(a: T[], less: (x: T, y: T) => boolean): T[] {
  goSort(
    a.length,
    (i, j) => less(a[i]!, a[j]!),
    (i, j) => {
      const t = a[i]!;
      a[i] = a[j]!;
      a[j] = t;
    },
  );
  return a;
}

function bitLen(n: number): number {
  let b = 0;
  while (n > 0) {
    b++;
    n = Math.floor(n / 2);
  }
  return b;
}

class GoSorter {
  constructor(
    private readonly less: Less,
    private readonly swap: Swap,
  ) {}

  private insertionSort(a: number, b: number): void {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && this.less(j, j - 1); j--) this.swap(j, j - 1);
    }
  }

  private siftDown(lo: number, hi: number, first: number): void {
    let root = lo;
    for (;;) {
      let child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && this.less(first + child, first + child + 1)) child++;
      if (!this.less(first + root, first + child)) return;
      this.swap(first + root, first + child);
      root = child;
    }
  }

  private heapSort(a: number, b: number): void {
    const first = a;
    const hi = b - a;
    for (let i = Math.floor((hi - 1) / 2); i >= 0; i--) this.siftDown(i, hi, first);
    for (let i = hi - 1; i >= 0; i--) {
      this.swap(first, first + i);
      this.siftDown(0, i, first);
    }
  }

  pdqsort(a: number, b: number, limit: number): void {
    const maxInsertion = 12;
    let wasBalanced = true;
    let wasPartitioned = true;
    for (;;) {
      const length = b - a;
      if (length <= maxInsertion) {
        this.insertionSort(a, b);
        return;
      }
      if (limit === 0) {
        this.heapSort(a, b);
        return;
      }
      if (!wasBalanced) {
        this.breakPatterns(a, b);
        limit--;
      }
      let [pivot, hint] = this.choosePivot(a, b);
      if (hint === DECREASING) {
        this.reverseRange(a, b);
        pivot = b - 1 - (pivot - a);
        hint = INCREASING;
      }
      if (wasBalanced && wasPartitioned && hint === INCREASING) {
        if (this.partialInsertionSort(a, b)) return;
      }
      if (a > 0 && !this.less(a - 1, pivot)) {
        a = this.partitionEqual(a, b, pivot);
        continue;
      }
      const [mid, alreadyPartitioned] = this.partition(a, b, pivot);
      wasPartitioned = alreadyPartitioned;
      const leftLen = mid - a;
      const rightLen = b - mid;
      const balanceThreshold = Math.floor(length / 8);
      if (leftLen < rightLen) {
        wasBalanced = leftLen >= balanceThreshold;
        this.pdqsort(a, mid, limit);
        a = mid + 1;
      } else {
        wasBalanced = rightLen >= balanceThreshold;
        this.pdqsort(mid + 1, b, limit);
        b = mid;
      }
    }
  }

  private partition(a: number, b: number, pivot: number): [number, boolean] {
    this.swap(a, pivot);
    let i = a + 1;
    let j = b - 1;
    while (i <= j && this.less(i, a)) i++;
    while (i <= j && !this.less(j, a)) j--;
    if (i > j) {
      this.swap(j, a);
      return [j, true];
    }
    this.swap(i, j);
    i++;
    j--;
    for (;;) {
      while (i <= j && this.less(i, a)) i++;
      while (i <= j && !this.less(j, a)) j--;
      if (i > j) break;
      this.swap(i, j);
      i++;
      j--;
    }
    this.swap(j, a);
    return [j, false];
  }

  private partitionEqual(a: number, b: number, pivot: number): number {
    this.swap(a, pivot);
    let i = a + 1;
    let j = b - 1;
    for (;;) {
      while (i <= j && !this.less(a, i)) i++;
      while (i <= j && this.less(a, j)) j--;
      if (i > j) break;
      this.swap(i, j);
      i++;
      j--;
    }
    return i;
  }

  private partialInsertionSort(a: number, b: number): boolean {
    const maxSteps = 5;
    const shortestShifting = 50;
    let i = a + 1;
    for (let step = 0; step < maxSteps; step++) {
      while (i < b && !this.less(i, i - 1)) i++;
      if (i === b) return true;
      if (b - a < shortestShifting) return false;
      this.swap(i, i - 1);
      if (i - a >= 2) {
        for (let j = i - 1; j >= 1; j--) {
          if (!this.less(j, j - 1)) break;
          this.swap(j, j - 1);
        }
      }
      if (b - i >= 2) {
        for (let j = i + 1; j < b; j++) {
          if (!this.less(j, j - 1)) break;
          this.swap(j, j - 1);
        }
      }
    }
    return false;
  }

  private breakPatterns(a: number, b: number): void {
    const length = b - a;
    if (length < 8) return;
    // Go 1.19's xorshift over uint64, seeded with the length.
    let r = BigInt(length);
    const mask = 0xffffffffffffffffn;
    const modulus = BigInt(2 ** bitLen(length));
    const base = a + Math.floor(length / 4) * 2;
    for (let idx = base - 1; idx <= base + 1; idx++) {
      r ^= (r << 13n) & mask;
      r ^= r >> 17n;
      r ^= (r << 5n) & mask;
      let other = Number(r & (modulus - 1n));
      if (other >= length) other -= length;
      this.swap(idx, a + other);
    }
  }

  private choosePivot(a: number, b: number): [number, number] {
    const shortestNinther = 50;
    const maxSwaps = 4 * 3;
    const l = b - a;
    const swaps = { n: 0 };
    let i = a + Math.floor(l / 4) * 1;
    let j = a + Math.floor(l / 4) * 2;
    let k = a + Math.floor(l / 4) * 3;
    if (l >= 8) {
      if (l >= shortestNinther) {
        i = this.median(i - 1, i, i + 1, swaps);
        j = this.median(j - 1, j, j + 1, swaps);
        k = this.median(k - 1, k, k + 1, swaps);
      }
      j = this.median(i, j, k, swaps);
    }
    if (swaps.n === 0) return [j, INCREASING];
    if (swaps.n === maxSwaps) return [j, DECREASING];
    return [j, UNKNOWN];
  }

  private median(a: number, b: number, c: number, swaps: { n: number }): number {
    // order2(a, b), order2(b, c), order2(a, b): each returns the pair ordered, counting swaps.
    if (this.less(b, a)) {
      swaps.n++;
      [a, b] = [b, a];
    }
    if (this.less(c, b)) {
      swaps.n++;
      [b, c] = [c, b];
    }
    if (this.less(b, a)) {
      swaps.n++;
      [a, b] = [b, a];
    }
    return b;
  }

  private reverseRange(a: number, b: number): void {
    let i = a;
    let j = b - 1;
    while (i < j) {
      this.swap(i, j);
      i++;
      j--;
    }
  }
}
