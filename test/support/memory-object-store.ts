/**
 * An ObjectStore in memory, for unit tests. Every operation yields to the event loop once before it
 * takes effect, as a real store would, so that concurrent callers interleave; a write is atomic
 * (readers see the old object or the new one). Objects are copied in and out.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { ObjectNotFoundError, type ObjectEntry, type ObjectStore } from '../../src/storage/object-store.js';

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class MemoryObjectStore implements ObjectStore {
  readonly description: string;
  private readonly objects = new Map<string, Uint8Array>();

  constructor(name = 'test') {
    this.description = `Memory(${name})`;
  }

  async read(path: string): Promise<Uint8Array> {
    await tick();
    const data = this.objects.get(path);
    if (data === undefined) throw new ObjectNotFoundError(path, this.description);
    return data.slice();
  }

  async write(path: string, data: Uint8Array): Promise<void> {
    await tick();
    this.objects.set(path, data.slice());
  }

  async upload(path: string, localFile: string, partSize: number): Promise<number> {
    const data = await readFile(localFile);
    await tick();
    this.objects.set(path, new Uint8Array(data));
    return Math.ceil(data.length / partSize);
  }

  async download(path: string, localFile: string, signal?: AbortSignal): Promise<number> {
    await tick();
    signal?.throwIfAborted();
    const data = this.objects.get(path);
    if (data === undefined) throw new ObjectNotFoundError(path, this.description);
    await writeFile(localFile, data);
    return data.length;
  }

  async stat(path: string): Promise<ObjectEntry | undefined> {
    await tick();
    const data = this.objects.get(path);
    return data === undefined ? undefined : { path, size: data.length };
  }

  async list(prefix: string): Promise<ObjectEntry[]> {
    await tick();
    return [...this.objects.entries()]
      .filter(([path]) => path.startsWith(prefix))
      .map(([path, data]) => ({ path, size: data.length }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async delete(path: string): Promise<void> {
    await tick();
    this.objects.delete(path);
  }

  async deleteAll(prefix: string): Promise<void> {
    await tick();
    for (const path of [...this.objects.keys()]) if (path.startsWith(prefix)) this.objects.delete(path);
  }

  readonly localRoot = undefined;

  localPath(): string | undefined {
    return undefined;
  }

  /** Paths of every object, sorted (for assertions). */
  paths(): string[] {
    return [...this.objects.keys()].sort();
  }
}
