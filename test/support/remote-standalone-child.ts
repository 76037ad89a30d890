/**
 * `node remote-standalone-child.js <datanode rpc addr> standalone start [flags…]`: a standalone
 * server whose frontend keeps its catalog here but reaches every region through the remote region
 * client (`servers/grpc/region-client.ts`) on a datanode's region service, as a cluster's frontend
 * does. Run by tests (golden SQL cases through the remote client) like `bin/tsdb`.
 */
import { buildProgram, type StartRequest } from '../../src/cli/program.js';
import { startComponent } from '../../src/cli/start.js';
import { createStandalone } from '../../src/components/standalone.js';
import type { LoadedConfig } from '../../src/config/load.js';
import { RemoteRegionServer } from '../../src/servers/grpc/region-client.js';

const [datanode, ...argv] = process.argv.slice(2);
let request: StartRequest | undefined;
buildProgram({ writeOut: (t) => process.stdout.write(t), writeErr: (t) => process.stderr.write(t), onStart: (r) => (request = r) }).parse(argv, { from: 'user' });
if (datanode === undefined || request?.component !== 'standalone') {
  process.stderr.write('usage: remote-standalone-child <datanode rpc addr> standalone start [flags]\n');
  process.exit(2);
}
const code = await startComponent(request, (t) => process.stderr.write(t), (loaded, logger) =>
  createStandalone(loaded as LoadedConfig<'standalone'>, logger, {
    remoteRegions: async () => {
      const regions = new RemoteRegionServer(datanode);
      return { regions, close: () => regions.close() };
    },
  }),
);
process.exit(code);
