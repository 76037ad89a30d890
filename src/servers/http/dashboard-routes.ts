/**
 * `/dashboard/`: the browser UI (issue 19; spec §4.2), built by `scripts/build-dashboard.mjs` into
 * `dist/dashboard/` and served from there — no CDN, works offline. The files are read once, on the
 * first request, into a table keyed by their path: a request is answered only with a file of that
 * table, so no request path can reach outside the directory. Paths holding `.`/`..` segments,
 * backslashes or NULs answer 404 rather than falling back to the page. Other paths without a file
 * extension get `index.html` (the UI routes by the URL's fragment, so this only keeps reloads and
 * bookmarks of a sub-path working). Each file was gzipped at build time (`<file>.gz`); a client that
 * accepts gzip gets those bytes.
 *
 * The static files need no authentication, as in GreptimeDB: they hold no data. The UI's API calls
 * carry the user's credentials (`Authorization: Basic`), asked for with a login form when the API
 * answers 401.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusCode } from '../../common/error/status-code.js';
import { sendError } from './http-server.js';

/** Where the build writes the dashboard: `dist/dashboard` beside `dist/src`. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../dashboard/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

interface StaticFile {
  readonly body: Buffer;
  readonly gzip: Buffer | undefined;
  readonly type: string;
  /** Files under `assets/` have a content hash in their name and never change under it. */
  readonly immutable: boolean;
}

/** The files of a built dashboard by their path below it (`/`-separated); empty when not built. */
export function loadDashboardFiles(dir: string = DASHBOARD_DIR): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (d: string): void => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && !e.name.endsWith('.gz')) {
        const key = relative(dir, p).split(sep).join('/');
        let gzip: Buffer | undefined;
        try {
          if (statSync(`${p}.gz`).isFile()) gzip = readFileSync(`${p}.gz`);
        } catch {
          gzip = undefined;
        }
        files.set(key, {
          body: readFileSync(p),
          gzip,
          type: CONTENT_TYPES[extname(e.name).toLowerCase()] ?? 'application/octet-stream',
          immutable: key.startsWith('assets/'),
        });
      }
    }
  };
  walk(dir);
  return files;
}

/** Whether the client takes gzip (`Accept-Encoding: gzip`, not `gzip;q=0`). */
function acceptsGzip(req: FastifyRequest): boolean {
  const accept = String(req.headers['accept-encoding'] ?? '');
  return accept.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function send(req: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply {
  reply
    .header('content-type', file.type)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding');
  if (file.gzip !== undefined && acceptsGzip(req)) {
    return reply.header('content-encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.body);
}

/** The path below `/dashboard/`, or undefined for one that tries to leave it or is not valid. */
export function dashboardPath(url: string): string | undefined {
  const raw = url.split('?')[0]!.slice('/dashboard/'.length);
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (path.includes('\\') || path.includes('\0')) return undefined;
  const segments = path.split('/');
  if (segments.some((s) => s === '.' || s === '..')) return undefined;
  return path;
}

export function dashboardRoutes(app: FastifyInstance, dir: string = DASHBOARD_DIR): void {
  let files: Map<string, StaticFile> | undefined;
  const notFound = (req: FastifyRequest, reply: FastifyReply) =>
    sendError(req, reply, StatusCode.Unsupported, `Not found: ${req.method} ${req.url.split('?')[0]}`, 404);

  app.get('/dashboard', (req, reply) => {
    const q = req.url.indexOf('?');
    return reply.redirect(`/dashboard/${q < 0 ? '' : req.url.slice(q)}`, 301);
  });
  app.get('/dashboard/*', (req, reply) => {
    files ??= loadDashboardFiles(dir);
    const index = files.get('index.html');
    if (index === undefined) {
      return sendError(req, reply, StatusCode.Unsupported, 'The dashboard is not built: run `npm run build`', 404);
    }
    const path = dashboardPath(req.url);
    if (path === undefined) return notFound(req, reply);
    if (path === '') return send(req, reply, index);
    const file = files.get(path);
    if (file !== undefined) return send(req, reply, file);
    // A missing asset is a 404; a page path (no extension) is the app's.
    if (extname(path) !== '' || path.startsWith('assets/')) return notFound(req, reply);
    return send(req, reply, index);
  });
}
