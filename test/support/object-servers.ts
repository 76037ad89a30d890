/**
 * Object storage servers for tests, each on 127.0.0.1 with a free port and its own temporary data
 * directory, stopped by its handle (child processes by their PID, never by name):
 *
 * - S3: s3rver (npm), in a child process.
 * - Azure Blob: azurite's blob service (npm), in a child process, with the well-known development
 *   account `devstoreaccount1`.
 * - GCS and OSS: fakes in this process (no emulator package exists), speaking the part of each
 *   REST API that OpenDAL's `gcs` and `oss` services (opendal 0.49.1 for Node = OpenDAL core
 *   0.54.1, reqsign 0.16.5) send; see `startFakeGcs` and `startFakeOss` for the requests covered.
 *   They keep objects as files in their data directory, byte for byte.
 *
 * Also for fault tests: `refusedEndpoint` (nothing listens) and `startSilentServer` (accepts
 * connections, never answers).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ObjectServer {
  /** `http://127.0.0.1:<port>` (for azurite with the account: `…/devstoreaccount1`). */
  readonly endpoint: string;
  /** Its data directory (removed by `stop`). */
  readonly dataDir: string;
  /** The child process's PID; undefined for the in-process fakes. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

// ------------------------------------------------------------------------------------------------
// Child processes

/** Resolves with the first line of the child's standard output that matches `pattern`. */
function waitForOutput(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => done(() => reject(new Error(`${what} did not start within ${timeoutMs} ms: ${out}`))), timeoutMs);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      for (const line of out.split('\n')) {
        const m = line.match(pattern);
        if (m !== null) return done(() => resolve(m));
      }
    };
    const onExit = (code: number | null, signal: string | null): void =>
      done(() => reject(new Error(`${what} exited (${code ?? signal}) before it listened: ${out}`)));
    const done = (settle: () => void): void => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      settle();
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Stops a child by its PID: SIGTERM (or closing its stdin), then SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 5000, viaStdin = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (viaStdin) child.stdin!.end();
  else process.kill(child.pid!, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

// ------------------------------------------------------------------------------------------------
// S3: s3rver
//
// Runs in a child process started with --openssl-legacy-provider: s3rver makes ListObjectsV2
// continuation tokens with DES, which Node's OpenSSL 3 refuses otherwise. Its file store is patched
// for one race: a multi-object delete (what deleteAll sends) removes keys concurrently, each also
// removing its emptied parent directories, and two of them removing one directory fail with
// ENOENT. Its writes are not atomic: a reader can see part of a PUT in progress.

const S3RVER_MAIN = `
  import S3rver from 's3rver';
  import FilesystemStore from 's3rver/lib/stores/filesystem.js';
  const deleteObject = FilesystemStore.prototype.deleteObject;
  FilesystemStore.prototype.deleteObject = async function (bucket, key) {
    try {
      await deleteObject.call(this, bucket, key);
    } catch (err) {
      if (err.code !== 'ENOENT' && err.code !== 'ENOTEMPTY') throw err;
    }
  };
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: process.argv[1],
    configureBuckets: JSON.parse(process.argv[2]).map((name) => ({ name })),
  });
  const { port } = await server.run();
  process.stdout.write('port ' + port + '\\n');
  // Stops with its parent: when the pipe closes.
  process.stdin.resume();
  process.stdin.on('end', () => server.close().then(() => process.exit(0)));
`;

export interface S3Server extends ObjectServer {
  readonly bucket: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** OpenDAL `s3` config for a root in the bucket. */
  config(root: string): Record<string, string>;
  /** tsdb's storage keys (`[storage]`, `[[storage.providers]]`) for a root in the bucket. */
  storage(root: string): Record<string, string>;
}

export async function startS3rver(bucket = 'tsdb-test'): Promise<S3Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsdb-s3rver-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '--input-type=module', '-e', S3RVER_MAIN, dataDir, JSON.stringify([bucket])], {
    cwd: PROJECT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const m = await waitForOutput(child, /^port (\d+)/, 's3rver');
    const endpoint = `http://127.0.0.1:${Number(m[1])}`;
    // s3rver checks signatures with its own fixed key pair.
    const accessKeyId = 'S3RVER';
    const secretAccessKey = 'S3RVER';
    return {
      endpoint,
      dataDir,
      pid: child.pid,
      bucket,
      region: 'us-east-1',
      accessKeyId,
      secretAccessKey,
      config: (root) => ({ bucket, root, endpoint, region: 'us-east-1', access_key_id: accessKeyId, secret_access_key: secretAccessKey }),
      storage: (root) => ({ type: 'S3', bucket, root, endpoint, region: 'us-east-1', access_key_id: accessKeyId, secret_access_key: secretAccessKey }),
      stop: async () => {
        await stopChild(child, 5000, true);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

// ------------------------------------------------------------------------------------------------
// Azure Blob: azurite

/** Azurite's (and the Azure storage emulator's) well-known development account. */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** azurite's blob service: TSDB_AZURITE_BIN when set (a `main.js` or `azurite-blob`), else the project's. */
function azuriteBlobMain(): string {
  const fromEnv = process.env['TSDB_AZURITE_BIN'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const pkg = join(PROJECT, 'node_modules', 'azurite', 'package.json');
  if (!existsSync(pkg)) throw new Error(`azurite is not installed (no ${pkg}): run npm install`);
  const bin = (JSON.parse(readFileSync(pkg, 'utf8')) as { bin?: Record<string, string> }).bin?.['azurite-blob'];
  if (bin === undefined) throw new Error(`${pkg} names no azurite-blob program`);
  return join(PROJECT, 'node_modules', 'azurite', bin);
}

export interface AzuriteServer extends ObjectServer {
  readonly accountName: string;
  readonly accountKey: string;
  /** Creates a container (with a shared key request). */
  createContainer(name: string): Promise<void>;
  /** An account SAS token (`sv=…&sig=…`) for the blob service, valid for a day; every permission unless `permissions` (e.g. `rl`) says. */
  sasToken(permissions?: string): string;
  /** OpenDAL `azblob` config with the account key, for a container and root. */
  config(container: string, root: string): Record<string, string>;
  /** tsdb's storage keys with the account key, for a container (create it first) and root. */
  storage(container: string, root: string): Record<string, string>;
}

export async function startAzurite(): Promise<AzuriteServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsdb-azurite-'));
  const child = spawn(
    process.execPath,
    [azuriteBlobMain(), '--blobHost', '127.0.0.1', '--blobPort', '0', '--location', dataDir, '--skipApiVersionCheck', '--disableTelemetry', '--silent'],
    { cwd: dataDir, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const m = await waitForOutput(child, /listens on http:\/\/127\.0\.0\.1:(\d+)/, 'azurite');
    const base = `http://127.0.0.1:${Number(m[1])}`;
    const endpoint = `${base}/${AZURITE_ACCOUNT}`;
    const sasToken = (permissions = 'rwdlacup'): string => accountSas(AZURITE_ACCOUNT, AZURITE_KEY, permissions);
    return {
      endpoint,
      dataDir,
      pid: child.pid,
      accountName: AZURITE_ACCOUNT,
      accountKey: AZURITE_KEY,
      sasToken,
      config: (container, root) => ({ container, root, endpoint, account_name: AZURITE_ACCOUNT, account_key: AZURITE_KEY }),
      storage: (container, root) => ({ type: 'Azblob', container, root, endpoint, account_name: AZURITE_ACCOUNT, account_key: AZURITE_KEY }),
      createContainer: async (name) => {
        const res = await fetch(`${endpoint}/${name}?restype=container&${sasToken()}`, { method: 'PUT' });
        if (res.status !== 201 && res.status !== 409) throw new Error(`azurite: create container ${name}: ${res.status} ${await res.text()}`);
      },
      stop: async () => {
        await stopChild(child);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * An account SAS (service version 2019-12-12, whose string to sign has no encryption scope):
 * blob service, service/container/object resources, the given permissions, valid from an hour ago
 * for a day, HTTP allowed.
 */
function accountSas(account: string, key: string, permissions: string): string {
  const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const now = Date.now();
  const f = { sv: '2019-12-12', ss: 'b', srt: 'sco', sp: permissions, st: iso(new Date(now - 3600_000)), se: iso(new Date(now + 86_400_000)), spr: 'https,http' };
  const toSign = [account, f.sp, f.ss, f.srt, f.st, f.se, '', f.spr, f.sv, ''].join('\n');
  const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(toSign, 'utf8').digest('base64');
  return new URLSearchParams({ ...f, sig }).toString();
}

// ------------------------------------------------------------------------------------------------
// The fakes' object storage: files in a directory, each replaced atomically (written aside, then
// renamed), so a reader sees the old or the new bytes, as the real services promise.

class FileObjects {
  private readonly objects: string;
  private readonly tmp: string;
  private seq = 0;
  /** Multipart uploads in progress: id → key and parts by number. */
  readonly uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();

  constructor(readonly dir: string) {
    this.objects = join(dir, 'objects');
    this.tmp = join(dir, 'tmp');
    mkdirSync(this.objects, { recursive: true });
    mkdirSync(this.tmp, { recursive: true });
  }

  private file(key: string): string {
    return join(this.objects, encodeURIComponent(key));
  }

  put(key: string, data: Buffer): void {
    const aside = join(this.tmp, `${++this.seq}`);
    writeFileSync(aside, data);
    renameSync(aside, this.file(key));
  }

  get(key: string): Buffer | undefined {
    try {
      return readFileSync(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  size(key: string): { size: number; mtime: Date } | undefined {
    try {
      const s = statSync(this.file(key));
      return { size: s.size, mtime: s.mtime };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Whether it existed. */
  delete(key: string): boolean {
    try {
      unlinkSync(this.file(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /** Keys starting with `prefix`, in byte order (as both services list), after `after` when given. */
  list(prefix: string, after?: string): string[] {
    return readdirSync(this.objects)
      .map((n) => decodeURIComponent(n))
      .filter((k) => k.startsWith(prefix) && (after === undefined || k > after))
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  newUpload(key: string): string {
    const id = randomBytes(12).toString('hex');
    this.uploads.set(id, { key, parts: new Map() });
    return id;
  }
}

function md5(data: Buffer): Buffer {
  return createHash('md5').update(data).digest();
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A Range header (`bytes=a-b`, `bytes=a-`, `bytes=-n`) against an object of `size` bytes:
 * undefined for none, 'unsatisfiable' for a range starting at or past the end, else [start, end).
 */
function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (m === null || (m[1] === '' && m[2] === '')) return undefined; // ignored, as the services do
  if (m[1] === '') {
    const n = Number(m[2]);
    return n === 0 ? 'unsatisfiable' : [Math.max(0, size - n), size];
  }
  const start = Number(m[1]);
  if (start >= size) return 'unsatisfiable';
  const end = m[2] === '' ? size : Math.min(size, Number(m[2]) + 1);
  return end <= start ? undefined : [start, end];
}

/**
 * One page of a listing of `names` (sorted, all under `prefix`): up to `max` entries, each an
 * object or, with a delimiter, a common prefix standing for every name under it (a prefix is
 * never cut across pages). `last` is the last name the page covers: the next page starts after it.
 */
function listPage(names: readonly string[], prefix: string, delimiter: string, max: number): { items: string[]; prefixes: string[]; last: string | undefined; more: boolean } {
  const items: string[] = [];
  const prefixes: string[] = [];
  let i = 0;
  while (i < names.length && items.length + prefixes.length < max) {
    const n = names[i]!;
    const cut = delimiter === '' ? -1 : n.indexOf(delimiter, prefix.length);
    if (cut < 0) {
      items.push(n);
      i++;
      continue;
    }
    const common = n.slice(0, cut + delimiter.length);
    prefixes.push(common);
    while (i < names.length && names[i]!.startsWith(common)) i++;
  }
  return { items, prefixes, last: i > 0 ? names[i - 1] : undefined, more: i < names.length };
}

interface FakeOptions {
  /** Objects per list page (the real services give up to 1000); small values exercise pagination. */
  readonly pageSize?: number;
}

export interface FakeServer extends ObjectServer {
  /** Every request received: `METHOD url`, in order (for tests that check what was sent). */
  readonly requests: string[];
}

/**
 * The same work through a store on a fake server, for the tests that check what each fake was
 * sent: an 11 MiB upload in 5 MiB parts, 7 small objects, a listing (paged when the fake pages
 * small), a download compared byte for byte, then deleteAll — checking the bytes are stored as
 * sent and gone after. Returns the requests the fake received meanwhile.
 */
export async function exerciseFakeStore(
  store: { upload(p: string, f: string, n: number): Promise<number>; write(p: string, d: Uint8Array): Promise<void>; list(p: string): Promise<unknown[]>; download(p: string, f: string): Promise<number>; deleteAll(p: string): Promise<void> },
  server: FakeServer,
  root: string,
  dir: string,
): Promise<string[]> {
  const seen = server.requests.length;
  const local = join(dir, 'f');
  writeFileSync(local, Buffer.alloc(11 * 1024 * 1024, 7));
  assert.equal(await store.upload('r/big', local, 5 * 1024 * 1024), 3);
  for (let i = 0; i < 7; i++) await store.write(`r/${i}`, Buffer.from([i]));
  assert.equal((await store.list('r/')).length, 8);
  // A download reads in ranged chunks of 8 MiB: two requests for 11 MiB.
  assert.equal(await store.download('r/big', join(dir, 'back')), 11 * 1024 * 1024);
  assert.ok(readFileSync(join(dir, 'back')).equals(readFileSync(local)));
  // The bytes are stored as sent.
  const onDisk = join(server.dataDir, 'store', 'objects', encodeURIComponent(`${root}/r/3`));
  assert.deepEqual([...readFileSync(onDisk)], [3]);
  await store.deleteAll('r/');
  assert.equal(existsSync(onDisk), false, 'deleteAll left an object');
  return server.requests.slice(seen);
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as { port: number }).port;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

// ------------------------------------------------------------------------------------------------
// GCS fake
//
// Requests covered (OpenDAL core 0.54.1 services/gcs, reqsign 0.16.5 google):
// - POST {token_url}: the STS token exchange of an `external_account` credential file (the only
//   credential form whose token exchange goes to a URL named in the file: a service account's
//   `token_uri` is ignored by reqsign, which posts to oauth2.googleapis.com). Answers a bearer
//   token; every other request must carry it (else 401 in GCS's JSON error form).
// - GET  /storage/v1/b/{bucket}/o/{name}?alt=media  (read; Range → 206, past the end → 416)
// - GET  /storage/v1/b/{bucket}/o/{name}            (stat: the object resource as JSON)
// - GET  /storage/v1/b/{bucket}/o?prefix=&pageToken=&delimiter=&startOffset=&maxResults=  (list;
//   `nextPageToken` while more remain; with a delimiter, `prefixes`)
// - POST /upload/storage/v1/b/{bucket}/o?uploadType=media&name={name}  (a write in one request)
// - DELETE /storage/v1/b/{bucket}/o/{name}          (204; 404 when missing)
// - POST /batch/storage/v1                          (multipart/mixed of DELETE sub-requests, as
//   OpenDAL's batch deleter sends; answers multipart/mixed of sub-responses)
// - the XML API multipart upload OpenDAL's writer uses for more than one chunk:
//   POST /{bucket}/{name}?uploads, PUT /{bucket}/{name}?partNumber=&uploadId= (ETag),
//   POST /{bucket}/{name}?uploadId= (CompleteMultipartUpload), DELETE /{bucket}/{name}?uploadId= (abort)
// Errors are GCS's JSON `{"error":{"code","message","errors":[…]}}` (XML API: `<Error>`).

export interface FakeGcs extends FakeServer {
  readonly bucket: string;
  /** Path of an `external_account` credential file whose token exchange goes to this server. */
  readonly credentialPath: string;
  /** The subject token of that file (a secret: never to be shown in errors). */
  readonly subjectToken: string;
  /** OpenDAL `gcs` config for a root in the bucket. */
  config(root: string): Record<string, string>;
  /** tsdb's storage keys for a root in the bucket. */
  storage(root: string): Record<string, string>;
}

export async function startFakeGcs(bucket = 'tsdb-test', options: FakeOptions = {}): Promise<FakeGcs> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsdb-fake-gcs-'));
  const store = new FileObjects(join(dataDir, 'store'));
  const pageSize = options.pageSize ?? 1000;
  const subjectToken = randomBytes(16).toString('hex');
  const accessToken = `ya29.${randomBytes(24).toString('hex')}`;
  const requests: string[] = [];

  const jsonError = (res: ServerResponse, code: number, reason: string, message: string): void => {
    const body = JSON.stringify({ error: { code, message, errors: [{ domain: 'global', reason, message }] } });
    res.writeHead(code, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body) }).end(body);
  };
  const xmlError = (res: ServerResponse, code: number, errCode: string, message: string): void => {
    const body = `<?xml version='1.0' encoding='UTF-8'?><Error><Code>${errCode}</Code><Message>${message}</Message></Error>`;
    res.writeHead(code, { 'content-type': 'application/xml; charset=UTF-8', 'content-length': Buffer.byteLength(body) }).end(body);
  };
  const json = (res: ServerResponse, code: number, value: unknown): void => {
    const body = JSON.stringify(value);
    res.writeHead(code, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body) }).end(body);
  };
  const resource = (name: string): Record<string, unknown> | undefined => {
    const data = store.get(name);
    if (data === undefined) return undefined;
    const st = store.size(name)!;
    const hash = md5(data).toString('base64');
    return {
      kind: 'storage#object',
      id: `${bucket}/${name}/${st.mtime.getTime()}`,
      name,
      bucket,
      generation: String(st.mtime.getTime() * 1000),
      metageneration: '1',
      contentType: 'application/octet-stream',
      storageClass: 'STANDARD',
      size: String(data.length),
      md5Hash: hash,
      etag: hash,
      timeCreated: st.mtime.toISOString(),
      updated: st.mtime.toISOString(),
    };
  };

  /** DELETE of one object, for a direct request and a batch sub-request alike. */
  const deleteObject = (name: string): [number, string] => {
    if (store.delete(name)) return [204, ''];
    return [404, JSON.stringify({ error: { code: 404, message: `No such object: ${bucket}/${name}`, errors: [{ domain: 'global', reason: 'notFound', message: `No such object: ${bucket}/${name}` }] } })];
  };

  const objectName = (path: string, prefix: string): string | undefined =>
    path.startsWith(prefix) ? decodeURIComponent(path.slice(prefix.length)) : undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url!, 'http://x');
    const path = url.pathname;
    const q = url.searchParams;
    const method = req.method!;
    const body = await readBody(req);

    if (method === 'POST' && path === '/token') {
      const sent = JSON.parse(body.toString() || '{}') as { subjectToken?: string };
      if (sent.subjectToken !== subjectToken) return jsonError(res, 400, 'invalid_grant', 'the subject token is not valid');
      return json(res, 200, { access_token: accessToken, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 3600 });
    }
    if (req.headers.authorization !== `Bearer ${accessToken}`) {
      return jsonError(res, 401, 'required', 'Anonymous caller does not have storage.objects access.');
    }

    const objPrefix = `/storage/v1/b/${bucket}/o/`;
    const xmlPrefix = `/${bucket}/`;
    if (path === '/batch/storage/v1' && method === 'POST') {
      const boundary = /boundary="?([^";]+)"?/.exec(req.headers['content-type'] ?? '')?.[1];
      if (boundary === undefined) return jsonError(res, 400, 'invalid', 'batch request without a multipart boundary');
      const out = `batch_${randomBytes(8).toString('hex')}`;
      let reply = '';
      for (const part of body.toString('latin1').split(`--${boundary}`)) {
        const m = /\r\n\r\n(\w+) (\S+) HTTP\/[\d.]+/.exec(part);
        if (m === null) continue;
        const id = /content-id: *(\S+)/i.exec(part)?.[1] ?? '';
        const name = m[1] === 'DELETE' ? objectName(m[2]!.split('?')[0]!, objPrefix) : undefined;
        const [status, text] = name === undefined ? [400, '{"error":{"code":400,"message":"only DELETE of objects is supported"}}'] : deleteObject(name);
        reply += `--${out}\r\nContent-Type: application/http\r\nContent-ID: response-${id}\r\n\r\nHTTP/1.1 ${status} ${status === 204 ? 'No Content' : 'Error'}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}\r\n`;
      }
      reply += `--${out}--\r\n`;
      res.writeHead(200, { 'content-type': `multipart/mixed; boundary=${out}`, 'content-length': Buffer.byteLength(reply) }).end(reply);
      return;
    }
    if (path === `/upload/storage/v1/b/${bucket}/o` && method === 'POST') {
      const name = q.get('name');
      if (name === null || q.get('uploadType') !== 'media') return jsonError(res, 400, 'invalid', 'only uploadType=media with a name is supported');
      store.put(name, body);
      return json(res, 200, resource(name));
    }
    if (path === `/storage/v1/b/${bucket}/o` && method === 'GET') {
      const prefix = q.get('prefix') ?? '';
      const delimiter = q.get('delimiter') ?? '';
      const max = Math.min(pageSize, Number(q.get('maxResults') ?? pageSize));
      // The page token is the last name of the previous page (opaque to the client).
      const token = q.get('pageToken');
      const after = token !== null && token !== '' ? Buffer.from(token, 'base64url').toString() : undefined;
      const startOffset = q.get('startOffset');
      let names = store.list(prefix, after);
      if (startOffset !== null && startOffset !== '') names = names.filter((n) => n >= startOffset);
      const { items, prefixes, last, more } = listPage(names, prefix, delimiter, max);
      const page: Record<string, unknown> = { kind: 'storage#objects' };
      if (items.length > 0) page['items'] = items.map((n) => resource(n)).filter((r) => r !== undefined);
      if (prefixes.length > 0) page['prefixes'] = prefixes;
      if (more) page['nextPageToken'] = Buffer.from(last!).toString('base64url');
      return json(res, 200, page);
    }
    const name = objectName(path, objPrefix);
    if (name !== undefined) {
      if (method === 'DELETE') {
        const [status, text] = deleteObject(name);
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) }).end(text);
        return;
      }
      if (method !== 'GET') return jsonError(res, 405, 'methodNotAllowed', `${method} is not supported on an object`);
      const meta = resource(name);
      if (meta === undefined) return jsonError(res, 404, 'notFound', `No such object: ${bucket}/${name}`);
      if (q.get('alt') !== 'media') return json(res, 200, meta);
      const data = store.get(name)!;
      const range = parseRange(req.headers.range, data.length);
      if (range === 'unsatisfiable') return jsonError(res, 416, 'requestedRangeNotSatisfiable', 'The requested range cannot be satisfied.');
      const headers = { 'content-type': 'application/octet-stream', 'x-goog-generation': String(meta['generation']), etag: String(meta['etag']) };
      if (range === undefined) {
        res.writeHead(200, { ...headers, 'content-length': data.length }).end(data);
      } else {
        res.writeHead(206, { ...headers, 'content-length': range[1] - range[0], 'content-range': `bytes ${range[0]}-${range[1] - 1}/${data.length}` });
        res.end(data.subarray(range[0], range[1]));
      }
      return;
    }
    // XML API: multipart upload.
    if (path.startsWith(xmlPrefix)) {
      const key = decodeURIComponent(path.slice(xmlPrefix.length));
      const uploadId = q.get('uploadId');
      if (method === 'POST' && q.has('uploads')) {
        const id = store.newUpload(key);
        const xml = `<?xml version='1.0' encoding='UTF-8'?><InitiateMultipartUploadResult xmlns='http://s3.amazonaws.com/doc/2006-03-01/'><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`;
        res.writeHead(200, { 'content-type': 'application/xml; charset=UTF-8', 'content-length': Buffer.byteLength(xml) }).end(xml);
        return;
      }
      const upload = uploadId === null ? undefined : store.uploads.get(uploadId);
      if (uploadId !== null && (upload === undefined || upload.key !== key)) return xmlError(res, 404, 'NoSuchUpload', 'The requested upload was not found.');
      if (method === 'PUT' && upload !== undefined) {
        const n = Number(q.get('partNumber'));
        if (!Number.isInteger(n) || n < 1 || n > 10000) return xmlError(res, 400, 'InvalidArgument', 'Invalid argument.');
        upload.parts.set(n, body);
        res.writeHead(200, { etag: `"${md5(body).toString('hex')}"`, 'content-length': 0 }).end();
        return;
      }
      if (method === 'POST' && upload !== undefined) {
        const listed = [...body.toString().matchAll(/<PartNumber>(\d+)<\/PartNumber>\s*<ETag>([^<]*)<\/ETag>/g)];
        const chunks: Buffer[] = [];
        let prev = 0;
        for (const [, num, etag] of listed) {
          const part = upload.parts.get(Number(num));
          if (part === undefined || etag!.replace(/&quot;/g, '"') !== `"${md5(part).toString('hex')}"`) return xmlError(res, 400, 'InvalidPart', `part ${num} is missing or its ETag differs`);
          if (Number(num) <= prev) return xmlError(res, 400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
          prev = Number(num);
          chunks.push(part);
        }
        if (chunks.length === 0) return xmlError(res, 400, 'MalformedPOSTRequest', 'no parts');
        store.put(key, Buffer.concat(chunks));
        store.uploads.delete(uploadId!);
        const xml = `<?xml version='1.0' encoding='UTF-8'?><CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><ETag>"${md5(Buffer.concat(chunks)).toString('hex')}-${chunks.length}"</ETag></CompleteMultipartUploadResult>`;
        res.writeHead(200, { 'content-type': 'application/xml; charset=UTF-8', 'content-length': Buffer.byteLength(xml) }).end(xml);
        return;
      }
      if (method === 'DELETE' && upload !== undefined) {
        store.uploads.delete(uploadId!);
        res.writeHead(204).end();
        return;
      }
    }
    return jsonError(res, 400, 'invalid', `the fake GCS does not handle ${method} ${req.url}`);
  };

  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) jsonError(res, 500, 'backendError', String(err));
      else res.destroy();
    });
  });
  const port = await listen(server);
  const endpoint = `http://127.0.0.1:${port}`;
  const subjectFile = join(dataDir, 'subject-token');
  writeFileSync(subjectFile, subjectToken);
  const credentialPath = join(dataDir, 'credential.json');
  writeFileSync(
    credentialPath,
    JSON.stringify({
      type: 'external_account',
      audience: '//iam.googleapis.com/projects/0/locations/global/workloadIdentityPools/tsdb-test/providers/fake',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${endpoint}/token`,
      credential_source: { file: subjectFile },
    }),
  );
  return {
    endpoint,
    dataDir,
    pid: undefined,
    bucket,
    credentialPath,
    subjectToken,
    requests,
    config: (root) => ({ bucket, root, endpoint, credential_path: credentialPath }),
    storage: (root) => ({ type: 'Gcs', bucket, root, endpoint, credential_path: credentialPath }),
    stop: async () => {
      await closeServer(server);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ------------------------------------------------------------------------------------------------
// OSS fake
//
// OpenDAL's `oss` service always addresses a bucket virtual-host style: endpoint
// `http://host:port` becomes `http://{bucket}.host:port`, and there is no path-style option. On
// loopback, with no DNS name to spare, the fake uses bucket `127` and endpoint `http://0.0.1:<port>`:
// the host OpenDAL builds, `127.0.0.1`, is the loopback address itself. (`127` is a valid OSS
// bucket name: 3 to 63 lowercase letters, digits and hyphens.)
//
// Requests covered (OpenDAL core 0.54.1 services/oss; V1 signatures of reqsign 0.16.5 aliyun,
// which the fake checks: `Authorization: OSS {access_key_id}:{HMAC-SHA1 signature}`):
// - PUT    /{key}                        (a write in one request)
// - GET    /{key}                        (read; Range → 206, past the end → 416)
// - HEAD   /{key}                        (stat; 404 without a body, as OSS)
// - DELETE /{key}                        (204, also when missing)
// - GET    /?list-type=2&prefix=&delimiter=&max-keys=&continuation-token=&start-after=  (list:
//   IsTruncated and NextContinuationToken while more remain)
// - POST   /?delete                      (DeleteMultipleObjects; answers every key as Deleted)
// - POST /{key}?uploads, PUT /{key}?partNumber=&uploadId=, POST /{key}?uploadId=,
//   DELETE /{key}?uploadId=                (multipart upload, as OpenDAL's writer uses it)
// Errors are OSS's XML `<Error><Code>…</Code><Message>…</Message><RequestId>…</RequestId>…</Error>`.

export interface FakeOss extends FakeServer {
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly accessKeySecret: string;
  /** OpenDAL `oss` config for a root in the bucket. */
  config(root: string): Record<string, string>;
  /** tsdb's storage keys for a root in the bucket. */
  storage(root: string): Record<string, string>;
}

/** Query parameters that are sub-resources, and so signed (reqsign's list, the ones OpenDAL sends). */
const OSS_SUB_RESOURCES = new Set(['uploads', 'uploadId', 'partNumber', 'delete', 'continuation-token', 'append', 'position', 'versions', 'versionId']);

export async function startFakeOss(options: FakeOptions = {}): Promise<FakeOss> {
  const bucket = '127';
  const dataDir = mkdtempSync(join(tmpdir(), 'tsdb-fake-oss-'));
  const store = new FileObjects(join(dataDir, 'store'));
  const pageSize = options.pageSize ?? 1000;
  const accessKeyId = `LTAI${randomBytes(8).toString('hex')}`;
  const accessKeySecret = randomBytes(20).toString('base64url');
  const requests: string[] = [];

  const xmlError = (res: ServerResponse, status: number, code: string, message: string, head = false): void => {
    const requestId = randomBytes(12).toString('hex').toUpperCase();
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error>\n  <Code>${code}</Code>\n  <Message>${message}</Message>\n  <RequestId>${requestId}</RequestId>\n  <HostId>${bucket}.oss.fake</HostId>\n</Error>\n`;
    res.writeHead(status, { 'content-type': 'application/xml', 'x-oss-request-id': requestId, 'content-length': head ? 0 : Buffer.byteLength(body) });
    res.end(head ? undefined : body);
  };
  const xml = (res: ServerResponse, body: string): void => {
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) }).end(body);
  };
  const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const unesc = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

  /** The V1 signature of a request (OSS "Including signatures in the Authorization header"). */
  const signature = (req: IncomingMessage, url: URL): string => {
    const h = req.headers;
    const ossHeaders = Object.keys(h)
      .filter((k) => k.startsWith('x-oss-'))
      .sort()
      .map((k) => `${k}:${String(h[k]).trim()}\n`)
      .join('');
    const sub = [...url.searchParams.entries()]
      .filter(([k]) => OSS_SUB_RESOURCES.has(k))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => (v === '' ? k : `${k}=${v}`))
      .join('&');
    const resource = `/${bucket}${decodeURIComponent(url.pathname)}${sub === '' ? '' : `?${sub}`}`;
    const toSign = `${req.method}\n${h['content-md5'] ?? ''}\n${h['content-type'] ?? ''}\n${h.date ?? ''}\n${ossHeaders}${resource}`;
    return createHmac('sha1', accessKeySecret).update(toSign, 'utf8').digest('base64');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url!, 'http://x');
    const q = url.searchParams;
    const method = req.method!;
    const head = method === 'HEAD';
    const body = await readBody(req);
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (host !== '127.0.0.1') return xmlError(res, 400, 'InvalidBucketName', `requests must address the bucket by host, got Host ${host}`, head);
    const auth = /^OSS ([^:]+):(.+)$/.exec(req.headers.authorization ?? '');
    if (auth === null) return xmlError(res, 403, 'AccessDenied', 'You have no right to access this object because of bucket acl.', head);
    if (auth[1] !== accessKeyId) return xmlError(res, 403, 'InvalidAccessKeyId', 'The OSS Access Key Id you provided does not exist in our records.', head);
    if (auth[2] !== signature(req, url)) return xmlError(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.', head);

    if (url.pathname === '/') {
      if (method === 'GET' && q.get('list-type') === '2') {
        const prefix = q.get('prefix') ?? '';
        const delimiter = q.get('delimiter') ?? '';
        const max = Math.min(pageSize, Number(q.get('max-keys') ?? pageSize));
        const token = q.get('continuation-token');
        const after = token !== null && token !== '' ? Buffer.from(token, 'base64url').toString() : (q.get('start-after') ?? undefined);
        const names = store.list(prefix, after);
        const { items: contents, prefixes, last, more: truncated } = listPage(names, prefix, delimiter, max);
        let out = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult>\n<Name>${bucket}</Name><Prefix>${esc(prefix)}</Prefix><MaxKeys>${max}</MaxKeys><Delimiter>${esc(delimiter)}</Delimiter><IsTruncated>${truncated}</IsTruncated>`;
        if (truncated) out += `<NextContinuationToken>${Buffer.from(last!).toString('base64url')}</NextContinuationToken>`;
        for (const n of contents) {
          const st = store.size(n);
          if (st === undefined) continue;
          const etag = `"${md5(store.get(n) ?? Buffer.alloc(0)).toString('hex').toUpperCase()}"`;
          out += `<Contents><Key>${esc(n)}</Key><LastModified>${st.mtime.toISOString()}</LastModified><ETag>${esc(etag)}</ETag><Type>Normal</Type><Size>${st.size}</Size><StorageClass>Standard</StorageClass></Contents>`;
        }
        for (const p of prefixes) out += `<CommonPrefixes><Prefix>${esc(p)}</Prefix></CommonPrefixes>`;
        out += `<KeyCount>${contents.length + prefixes.length}</KeyCount></ListBucketResult>`;
        return xml(res, out);
      }
      if (method === 'POST' && q.has('delete')) {
        const expected = req.headers['content-md5'];
        if (expected !== md5(body).toString('base64')) return xmlError(res, 400, 'InvalidDigest', 'The Content-MD5 you specified did not match what we received.');
        const keys = [...body.toString().matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unesc(m[1]!));
        if (keys.length === 0 || keys.length > 1000) return xmlError(res, 400, 'MalformedXML', 'The XML you provided was not well-formed.');
        for (const k of keys) store.delete(k);
        return xml(res, `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult>${keys.map((k) => `<Deleted><Key>${esc(k)}</Key></Deleted>`).join('')}</DeleteResult>`);
      }
      return xmlError(res, 400, 'NotImplemented', `the fake OSS does not handle ${method} ${req.url}`);
    }

    const key = decodeURIComponent(url.pathname.slice(1));
    const uploadId = q.get('uploadId');
    if (method === 'POST' && q.has('uploads')) {
      const id = store.newUpload(key);
      return xml(res, `<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${esc(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
    }
    if (uploadId !== null) {
      const upload = store.uploads.get(uploadId);
      if (upload === undefined || upload.key !== key) return xmlError(res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
      if (method === 'PUT') {
        const n = Number(q.get('partNumber'));
        if (!Number.isInteger(n) || n < 1 || n > 10000) return xmlError(res, 400, 'InvalidArgument', 'Part number must be an integer between 1 and 10000.');
        upload.parts.set(n, body);
        res.writeHead(200, { etag: `"${md5(body).toString('hex').toUpperCase()}"`, 'content-length': 0 }).end();
        return;
      }
      if (method === 'POST') {
        const listed = [...body.toString().matchAll(/<PartNumber>(\d+)<\/PartNumber>\s*<ETag>([^<]*)<\/ETag>/g)];
        const chunks: Buffer[] = [];
        let prev = 0;
        for (const [, num, etag] of listed) {
          const part = upload.parts.get(Number(num));
          if (part === undefined || unesc(etag!) !== `"${md5(part).toString('hex').toUpperCase()}"`) return xmlError(res, 400, 'InvalidPart', `part ${num} is missing or its ETag differs`);
          if (Number(num) <= prev) return xmlError(res, 400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
          // Every part but the last is at least 100 KiB.
          if (prev > 0 && chunks[chunks.length - 1]!.length < 100 * 1024) return xmlError(res, 400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size.');
          prev = Number(num);
          chunks.push(part);
        }
        if (chunks.length === 0) return xmlError(res, 400, 'MalformedXML', 'no parts');
        const whole = Buffer.concat(chunks);
        store.put(key, whole);
        store.uploads.delete(uploadId);
        return xml(res, `<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${esc(key)}</Key><ETag>"${md5(whole).toString('hex').toUpperCase()}-${chunks.length}"</ETag></CompleteMultipartUploadResult>`);
      }
      if (method === 'DELETE') {
        store.uploads.delete(uploadId);
        res.writeHead(204).end();
        return;
      }
    }
    if (method === 'PUT') {
      store.put(key, body);
      res.writeHead(200, { etag: `"${md5(body).toString('hex').toUpperCase()}"`, 'content-length': 0 }).end();
      return;
    }
    if (method === 'DELETE') {
      store.delete(key);
      res.writeHead(204).end();
      return;
    }
    if (method === 'GET' || head) {
      const data = store.get(key);
      if (data === undefined) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.', head);
      const st = store.size(key)!;
      const headers = {
        'content-type': 'application/octet-stream',
        etag: `"${md5(data).toString('hex').toUpperCase()}"`,
        'last-modified': st.mtime.toUTCString(),
        'x-oss-object-type': 'Normal',
        'accept-ranges': 'bytes',
      };
      const range = head ? undefined : parseRange(req.headers.range, data.length);
      if (range === 'unsatisfiable') return xmlError(res, 416, 'InvalidRange', 'The requested range cannot be satisfied');
      if (range === undefined) {
        res.writeHead(200, { ...headers, 'content-length': data.length });
        res.end(head ? undefined : data);
      } else {
        res.writeHead(206, { ...headers, 'content-length': range[1] - range[0], 'content-range': `bytes ${range[0]}-${range[1] - 1}/${data.length}` });
        res.end(data.subarray(range[0], range[1]));
      }
      return;
    }
    return xmlError(res, 400, 'NotImplemented', `the fake OSS does not handle ${method} ${req.url}`, head);
  };

  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) xmlError(res, 500, 'InternalError', String(err));
      else res.destroy();
    });
  });
  const port = await listen(server);
  return {
    endpoint: `http://0.0.1:${port}`,
    dataDir,
    pid: undefined,
    bucket,
    accessKeyId,
    accessKeySecret,
    requests,
    config: (root) => ({ bucket, root, endpoint: `http://0.0.1:${port}`, access_key_id: accessKeyId, access_key_secret: accessKeySecret }),
    storage: (root) => ({ type: 'Oss', bucket, root, endpoint: `http://0.0.1:${port}`, access_key_id: accessKeyId, secret_access_key: accessKeySecret }),
    stop: async () => {
      await closeServer(server);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ------------------------------------------------------------------------------------------------
// Faults

/** An endpoint on 127.0.0.1 where nothing listens (a port just bound and released). */
export async function refusedEndpoint(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface SilentServer {
  readonly endpoint: string;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  stop(): Promise<void>;
}

/** Accepts connections and reads what is sent, never answering. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: NetServer = createNetServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sleep(0);
    },
  };
}

// ------------------------------------------------------------------------------------------------
// Any provider

export type RemoteStorageType = 'S3' | 'Azblob' | 'Gcs' | 'Oss';

export interface StorageServer {
  readonly type: RemoteStorageType;
  readonly server: ObjectServer;
  /** tsdb's storage keys (with `type`) for a root of the server's bucket or container. */
  storage(root: string): Record<string, string>;
  stop(): Promise<void>;
}

/** A server for a storage type, ready for tsdb's keys (for Azblob, container `tsdb` is created). */
export async function startStorageServer(type: RemoteStorageType): Promise<StorageServer> {
  switch (type) {
    case 'S3': {
      const s = await startS3rver();
      return { type, server: s, storage: (root) => s.storage(root), stop: () => s.stop() };
    }
    case 'Azblob': {
      const s = await startAzurite();
      try {
        await s.createContainer('tsdb');
      } catch (err) {
        await s.stop();
        throw err;
      }
      return { type, server: s, storage: (root) => s.storage('tsdb', root), stop: () => s.stop() };
    }
    case 'Gcs': {
      const s = await startFakeGcs();
      return { type, server: s, storage: (root) => s.storage(root), stop: () => s.stop() };
    }
    case 'Oss': {
      const s = await startFakeOss();
      return { type, server: s, storage: (root) => s.storage(root), stop: () => s.stop() };
    }
  }
}
