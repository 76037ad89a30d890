/**
 * A region server client to be killed mid-query (test/integration/datanode-region-service.test.ts):
 * runs region query argv[4] (SQL) against region argv[3] of the datanode at argv[2], printing
 * `querying` once the call is sent and `batch` for each record batch it reads, one a second, so the
 * query is still running or streaming when the test kills this process.
 */
import { RemoteRegionServer } from '../../src/servers/grpc/region-client.js';

const [addr, id, sql] = [process.argv[2]!, BigInt(process.argv[3]!), process.argv[4]!];
const client = new RemoteRegionServer(addr);
const started = client.query(id, { sql });
process.stdout.write('querying\n');
const { batches } = await started;
for await (const _ of batches) {
  process.stdout.write('batch\n');
  await new Promise((r) => setTimeout(r, 1000));
}
process.stdout.write('done\n');
