/** Entry point of `bin/tsdb`. */
import { CommanderError } from 'commander';
import { buildProgram, type StartRequest } from './program.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, startComponent } from './start.js';
import { exportData, importData, type TransferOptions } from './data-transfer.js';

export async function main(argv: readonly string[]): Promise<number> {
  const writeOut = (text: string) => process.stdout.write(text);
  const writeErr = (text: string) => process.stderr.write(text);
  let request: StartRequest | undefined;
  let transfer: { kind: 'export' | 'import'; options: TransferOptions } | undefined;
  const program = buildProgram({ writeOut, writeErr, onStart: (r) => (request = r), onTransfer: (kind, options) => (transfer = { kind, options }) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    throw err;
  }
  if (transfer !== undefined) {
    try {
      await (transfer.kind === 'export' ? exportData : importData)(transfer.options, process.stderr);
      return EXIT_OK;
    } catch (err) {
      writeErr(`tsdb cli ${transfer.kind}: ${err instanceof Error ? err.message : String(err)}\n`);
      return EXIT_FAILURE;
    }
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
