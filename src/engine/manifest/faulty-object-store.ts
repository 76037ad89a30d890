/**
 * Test double for manifest.suite.ts: wraps any ObjectStore and injects one fault at a chosen
 * mutation (write, delete, deleteAll), to play a crash at that point against a real store.
 * - `crash`: the mutation does not happen and the process is gone: it and every later operation
 *   fail, so nothing after it reaches the store.
 * - `torn`: a write leaves only the first half of its bytes (a store without atomic writes), then
 *   as `crash`.
 * - `fail`: the mutation fails without effect, once; the store works on (a transient error).
 * - `lost-ack`: the mutation takes effect but fails to its caller, once (e.g. a timeout after the
 *   store had done it); the store works on.
 */
import type { ObjectEntry, ObjectStore } from '../../storage/object-store.js';

export interface StoreMutation {
  /** 0 for the first mutation through this wrapper. */
  readonly index: number;
  readonly kind: 'write' | 'delete' | 'deleteAll';
  readonly path: string;
  readonly data?: Uint8Array;
}

export type FaultMode = 'crash' | 'torn' | 'fail' | 'lost-ack';

export interface Fault {
  readonly mode: FaultMode;
  readonly at: (m: StoreMutation) => boolean;
}

export class SimulatedFault extends Error {
  override readonly name = 'SimulatedFault';
}

export class FaultyObjectStore implements ObjectStore {
  readonly description: string;
  /** Every mutation attempted, in order (including the faulty one). */
  readonly mutations: StoreMutation[] = [];
  private dead = false;
  private armed: Fault | undefined;

  constructor(
    private readonly inner: ObjectStore,
    fault?: Fault,
  ) {
    this.description = inner.description;
    this.armed = fault;
  }

  /** Whether a crash happened. */
  get crashed(): boolean {
    return this.dead;
  }

  async read(path: string): Promise<Uint8Array> {
    this.checkAlive(path);
    return this.inner.read(path);
  }

  /** Uploads carry SSTs, not manifest files: passed through (faults only need to reach the store's liveness). */
  async upload(path: string, localFile: string, partSize: number): Promise<number> {
    this.checkAlive(path);
    return this.inner.upload(path, localFile, partSize);
  }

  async download(path: string, localFile: string, signal?: AbortSignal): Promise<number> {
    this.checkAlive(path);
    return this.inner.download(path, localFile, signal);
  }

  async stat(path: string): Promise<ObjectEntry | undefined> {
    this.checkAlive(path);
    return this.inner.stat(path);
  }

  async list(prefix: string): Promise<ObjectEntry[]> {
    this.checkAlive(prefix);
    return this.inner.list(prefix);
  }

  async write(path: string, data: Uint8Array): Promise<void> {
    const fault = this.mutate({ kind: 'write', path, data });
    if (fault === 'torn') await this.inner.write(path, data.subarray(0, Math.floor(data.length / 2)));
    if (fault === 'lost-ack') await this.inner.write(path, data);
    if (fault !== undefined) throw new SimulatedFault(`simulated ${fault} at write ${path}`);
    await this.inner.write(path, data);
  }

  async delete(path: string): Promise<void> {
    const fault = this.mutate({ kind: 'delete', path });
    if (fault === 'lost-ack') await this.inner.delete(path);
    if (fault !== undefined) throw new SimulatedFault(`simulated ${fault} at delete ${path}`);
    await this.inner.delete(path);
  }

  async deleteAll(prefix: string): Promise<void> {
    const fault = this.mutate({ kind: 'deleteAll', path: prefix });
    if (fault === 'lost-ack') await this.inner.deleteAll(prefix);
    if (fault !== undefined) throw new SimulatedFault(`simulated ${fault} at deleteAll ${prefix}`);
    await this.inner.deleteAll(prefix);
  }

  get localRoot(): string | undefined {
    return this.inner.localRoot;
  }

  localPath(path: string): string | undefined {
    return this.inner.localPath(path);
  }

  private checkAlive(path: string): void {
    if (this.dead) throw new SimulatedFault(`store used after a simulated crash: ${path}`);
  }

  /** Records the mutation; returns the fault to play, if this is the one. */
  private mutate(m: Omit<StoreMutation, 'index'>): FaultMode | undefined {
    this.checkAlive(m.path);
    const mutation: StoreMutation = { index: this.mutations.length, ...m };
    this.mutations.push(mutation);
    const fault = this.armed;
    if (fault === undefined || !fault.at(mutation)) return undefined;
    this.armed = undefined;
    if (fault.mode === 'crash' || fault.mode === 'torn') this.dead = true;
    return fault.mode === 'torn' && m.kind !== 'write' ? 'crash' : fault.mode;
  }
}
