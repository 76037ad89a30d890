/**
 * The copy directory (`[copy] dir`) made ready at start: created if missing, and given (as its real
 * path too, when a symbolic link leads to it) to the query DuckDB's allowed directories, so that
 * COPY's files can be written and read there and nowhere else.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';

export async function copyDirs(dir: string | undefined): Promise<string[]> {
  if (dir === undefined || dir === '') return [];
  const abs = resolve(dir);
  await mkdir(abs, { recursive: true });
  const real = await realpath(abs);
  return real === abs ? [abs] : [abs, real];
}
