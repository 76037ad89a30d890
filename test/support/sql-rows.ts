/**
 * Runs one statement over `POST /v1/sql` and returns its rows (none for a statement without rows);
 * fails the test with the server's message on any error.
 */
import assert from 'node:assert/strict';

export async function sqlRows(baseUrl: string, statement: string, opts: { db?: string; auth?: string } = {}): Promise<unknown[][]> {
  const res = await fetch(`${baseUrl}/v1/sql?db=${encodeURIComponent(opts.db ?? 'public')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(opts.auth !== undefined && { authorization: `Basic ${Buffer.from(opts.auth).toString('base64')}` }) },
    body: new URLSearchParams({ sql: statement }).toString(),
  });
  const body = (await res.json()) as { output?: Array<{ records?: { rows: unknown[][] } }>; error?: string };
  assert.equal(res.status, 200, body.error);
  return body.output![0]!.records?.rows ?? [];
}
