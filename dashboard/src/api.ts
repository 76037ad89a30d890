/**
 * The dashboard's calls to tsdb's HTTP API. With a user provider configured the API answers 401;
 * every call then waits for the login form (shown once however many calls wait), keeps the
 * credentials in sessionStorage (gone with the tab) and is sent again with `Authorization: Basic`.
 */
const AUTH_KEY = 'tsdb.dashboard.auth';
const USER_KEY = 'tsdb.dashboard.user';

/** Shows the login form with a message; resolves once new credentials are stored. */
export type LoginPrompt = (message: string) => Promise<void>;

let loginPrompt: LoginPrompt | undefined;
let pendingLogin: Promise<void> | undefined;

export function setLoginPrompt(prompt: LoginPrompt): void {
  loginPrompt = prompt;
}

function base64Utf8(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function setCredentials(user: string, password: string): void {
  sessionStorage.setItem(AUTH_KEY, base64Utf8(`${user}:${password}`));
  sessionStorage.setItem(USER_KEY, user);
}

export function clearCredentials(): void {
  sessionStorage.removeItem(AUTH_KEY);
  sessionStorage.removeItem(USER_KEY);
}

export function currentUser(): string | undefined {
  return sessionStorage.getItem(USER_KEY) ?? undefined;
}

/** The message of an error response: tsdb's `{"error": …}`, Prometheus's `{"error": …}`, or the text. */
export async function errorText(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON
  }
  return text.trim() || `HTTP ${res.status} ${res.statusText}`;
}

/** `fetch` with the stored credentials; a 401 asks for credentials and tries again. */
export async function apiFetch(input: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    const headers = new Headers(init.headers);
    const auth = sessionStorage.getItem(AUTH_KEY);
    if (auth !== null) headers.set('authorization', `Basic ${auth}`);
    const res = await fetch(input, { ...init, headers });
    if (res.status !== 401 || loginPrompt === undefined) return res;
    const message = auth === null ? 'This server needs a user name and password.' : await errorText(res);
    const prompt = loginPrompt;
    pendingLogin ??= prompt(message).finally(() => (pendingLogin = undefined));
    await pendingLogin;
  }
}

export interface Column {
  readonly name: string;
  readonly type: string;
}

export interface Records {
  readonly columns: readonly Column[];
  readonly rows: readonly unknown[][];
}

export interface SqlOutput {
  readonly records?: Records;
  readonly affectedRows?: number;
}

export interface SqlResult {
  readonly outputs: readonly SqlOutput[];
  readonly ms: number;
}

interface SqlBody {
  code?: number;
  error?: string;
  execution_time_ms?: number;
  output?: Array<{
    records?: { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: unknown[][] };
    affectedrows?: number;
  }>;
}

/** `POST /v1/sql` in database `db`; `limit` cuts each result's rows on the server. */
export async function runSql(query: string, db: string, limit?: number): Promise<SqlResult> {
  const res = await apiFetch('/v1/sql', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sql: query, db, ...(limit !== undefined && { limit: String(limit) }) }),
  });
  if (!res.ok) throw new Error(await errorText(res));
  const body = (await res.json()) as SqlBody;
  if (body.error !== undefined) throw new Error(body.error);
  const outputs = (body.output ?? []).map((o): SqlOutput =>
    o.records !== undefined
      ? { records: { columns: o.records.schema.column_schemas.map((c) => ({ name: c.name, type: c.data_type })), rows: o.records.rows } }
      : { affectedRows: o.affectedrows ?? 0 },
  );
  return { outputs, ms: body.execution_time_ms ?? 0 };
}

/** The rows of the last output of a query (for the dashboard's own catalogue queries). */
export async function queryRows(query: string, db = 'public'): Promise<unknown[][]> {
  const result = await runSql(query, db);
  const last = result.outputs[result.outputs.length - 1];
  return last?.records?.rows.map((r) => [...r]) ?? [];
}

export interface PromSeries {
  readonly metric: Record<string, string>;
  readonly values: ReadonlyArray<[number, string]>;
}

interface PromBody {
  status: string;
  error?: string;
  data?: { resultType: string; result: unknown };
}

/** `query_range` of tsdb's Prometheus API; every result type is answered as a matrix. */
export async function promRange(query: string, db: string, start: number, end: number, step: number): Promise<PromSeries[]> {
  const params = new URLSearchParams({ query, start: String(start), end: String(end), step: String(step), db });
  const res = await apiFetch(`/v1/prometheus/api/v1/query_range?${params}`);
  const body = (await res.json().catch(() => ({ status: 'error', error: `HTTP ${res.status}` }))) as PromBody;
  if (body.status !== 'success' || body.data === undefined) throw new Error(body.error ?? `HTTP ${res.status}`);
  if (body.data.resultType !== 'matrix') throw new Error(`unexpected result type ${body.data.resultType}`);
  return body.data.result as PromSeries[];
}

export async function databases(): Promise<string[]> {
  return (await queryRows('SHOW DATABASES')).map((r) => String(r[0]));
}
