/** Entry point of `bin/tsdb`. */
import { CommanderError } from 'commander';
import { buildProgram, type StartRequest } from './program.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, startComponent } from './start.js';

export async function main(argv: readonly string[]): Promise<number> {
  const writeOut = (text: string) => process.stdout.write(text);
  const writeErr = (text: string) => process.stderr.write(text);
  let request: StartRequest | undefined;
  const program = buildProgram({ writeOut, writeErr, onStart: (r) => (request = r) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    throw err;
  }
  if (request === undefined) return EXIT_USAGE;
  return startComponent(request, writeErr);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`tsdb: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
