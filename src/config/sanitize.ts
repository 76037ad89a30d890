/**
 * Checks across options that the schema's types cannot express, and the one step that fixes
 * values GreptimeDB also fixes (with a warning). Runs after resolution, before anything starts.
 */
import { statSync } from 'node:fs';
import { formatSize, MIB } from '../common/size/size.js';
import type { ComponentName } from './flags.js';
import {
  STORAGE_KEYS,
  type DatanodeOptions,
  type FrontendOptions,
  type MetasrvOptions,
  type MitoOptions,
  type ObjectStorageType,
  type StandaloneOptions,
  type StorageOptions,
  type TlsOptions,
} from './options.js';
import { pathText, sourceOf, type ConfigIssue, type PathSegment, type Resolved } from './resolve.js';
import type { SystemInfo } from './schema.js';

export type AnyOptions = StandaloneOptions | FrontendOptions | DatanodeOptions | MetasrvOptions;

interface Checker {
  readonly issues: ConfigIssue[];
  readonly warnings: string[];
  issue(path: readonly PathSegment[], message: string): void;
  /** Whether the option was set by the user (file, environment or flag). */
  isSet(path: readonly PathSegment[]): boolean;
}

function checker(resolved: Resolved<unknown>): Checker {
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  return {
    issues,
    warnings,
    issue(path, message) {
      issues.push({ path: pathText(path), message, source: sourceOf(resolved, path) });
    },
    isSet(path) {
      return sourceOf(resolved, path).kind !== 'default';
    },
  };
}

const MIN_SST_WRITE_BUFFER = 5 * MIB;

/** Validates and sanitizes in place; returns the problems (fatal) and warnings (values fixed). */
export function sanitize(
  component: ComponentName,
  resolved: Resolved<AnyOptions>,
  system: SystemInfo,
): { issues: ConfigIssue[]; warnings: string[] } {
  const c = checker(resolved);
  const cfg = resolved.config as Record<string, any>;

  if (component === 'standalone' && cfg['mode'] !== 'standalone') {
    c.issue(['mode'], `a standalone server runs in mode "standalone", not "${cfg['mode']}"`);
  }
  if (component === 'standalone' || component === 'frontend') {
    const fe = cfg as FrontendOptions;
    checkTls(c, ['mysql', 'tls'], fe.mysql.tls);
    checkTls(c, ['postgres', 'tls'], fe.postgres.tls);
    if (fe.user_provider !== undefined) checkUserProvider(c, fe.user_provider);
    if (fe.query.parallelism === 0) fe.query.parallelism = Math.max(1, Math.floor(system.cpus / 4));
    if (fe.default_timezone !== undefined && !isValidTimeZone(fe.default_timezone)) {
      c.issue(['default_timezone'], `invalid time zone "${fe.default_timezone}"; expected an IANA name such as "Asia/Shanghai" or an offset such as "+08:00"`);
    }
    checkSlowQuery(c, fe);
  }
  if (component === 'standalone' || component === 'datanode') {
    const dn = cfg as DatanodeOptions;
    checkStorage(c, dn.storage);
    sanitizeMito(c, dn.region_engine.mito, system);
  }
  checkExportMetrics(c, component, cfg);
  return { issues: c.issues, warnings: c.warnings };
}

function checkTls(c: Checker, path: PathSegment[], tls: TlsOptions): void {
  if (tls.mode === 'disable') return;
  for (const key of ['cert_path', 'key_path'] as const) {
    if (tls[key] === '') c.issue([...path, key], `required when ${pathText([...path, 'mode'])} is "${tls.mode}"`);
  }
  for (const key of ['cert_path', 'key_path', 'ca_cert_path'] as const) {
    if (tls[key] !== '' && !isFile(tls[key])) c.issue([...path, key], `file "${tls[key]}" does not exist or is not a file`);
  }
  if ((tls.mode === 'verify-ca' || tls.mode === 'verify-full') && tls.ca_cert_path === '') {
    c.issue([...path, 'ca_cert_path'], `required when ${pathText([...path, 'mode'])} is "${tls.mode}"`);
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function checkUserProvider(c: Checker, value: string): void {
  const path = ['user_provider'];
  const cmd = 'static_user_provider:cmd:';
  const fileForms = ['static_user_provider:file:', 'watch_file_user_provider:'];
  if (value.startsWith(cmd)) {
    const users = value.slice(cmd.length).split(',').filter((u) => u.trim() !== '');
    if (users.length === 0 || users.some((u) => !/^[^=]+=.*$/.test(u))) {
      c.issue(path, `expected "${cmd}<user>=<password>[,<user>=<password>…]"`);
    }
    return;
  }
  const form = fileForms.find((f) => value.startsWith(f));
  if (form === undefined) {
    c.issue(
      path,
      `unknown user provider "${value.split(':')[0]}"; expected static_user_provider:cmd:<user>=<password>,…, static_user_provider:file:<path> or watch_file_user_provider:<path>`,
    );
    return;
  }
  const file = value.slice(form.length);
  if (!isFile(file)) c.issue(path, `user file "${file}" does not exist or is not a file`);
}

export function isValidTimeZone(tz: string): boolean {
  if (/^[+-](0\d|1[0-4]):?[0-5]\d$/.test(tz)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const TYPE_KEYS = ['bucket', 'root', 'endpoint', 'region', 'access_key_id', 'secret_access_key', 'container',
  'account_name', 'account_key', 'sas_token', 'scope', 'credential_path', 'cache_path', 'cache_capacity'] as const;

function checkStorageType(c: Checker, path: PathSegment[], st: Record<string, unknown>): void {
  const type = st['type'] as StorageOptions['type'];
  const allowed: readonly string[] = type === 'File' ? [] : STORAGE_KEYS[type].keys;
  for (const key of TYPE_KEYS) {
    if (st[key] !== undefined && !allowed.includes(key)) {
      const owners = (Object.keys(STORAGE_KEYS) as ObjectStorageType[]).filter((t) => STORAGE_KEYS[t].keys.includes(key));
      c.issue([...path, key], `not an option of storage type ${type} (it applies to ${owners.join(', ')})`);
    }
  }
  if (type !== 'File') {
    for (const key of STORAGE_KEYS[type].required) {
      if (st[key] === undefined || st[key] === '') c.issue([...path, key], `required when the storage type is ${type}`);
    }
  }
}

function checkStorage(c: Checker, storage: StorageOptions): void {
  if (storage.data_home.trim() === '') c.issue(['storage', 'data_home'], 'must not be empty');
  checkStorageType(c, ['storage'], storage as unknown as Record<string, unknown>);
  const names = new Map<string, number>();
  storage.providers.forEach((p, i) => {
    checkStorageType(c, ['storage', 'providers', i], p as unknown as Record<string, unknown>);
    const name = p.name ?? p.type;
    const previous = names.get(name);
    if (previous !== undefined) {
      c.issue(['storage', 'providers', i, 'name'], `duplicate provider name "${name}" (also storage.providers[${previous}]); give each a distinct name`);
    }
    names.set(name, i);
  });
}

function sanitizeMito(c: Checker, mito: MitoOptions, system: SystemInfo): void {
  const path = ['region_engine', 'mito'];
  if (mito.global_write_buffer_reject_size <= mito.global_write_buffer_size) {
    const fixed = 2 * mito.global_write_buffer_size;
    c.warnings.push(
      `region_engine.mito.global_write_buffer_reject_size (${formatSize(mito.global_write_buffer_reject_size)}) must exceed global_write_buffer_size (${formatSize(mito.global_write_buffer_size)}); using ${formatSize(fixed)}`,
    );
    mito.global_write_buffer_reject_size = fixed;
  }
  if (mito.sst_write_buffer_size < MIN_SST_WRITE_BUFFER) {
    c.warnings.push(
      `${pathText([...path, 'sst_write_buffer_size'])} (${formatSize(mito.sst_write_buffer_size)}) is below the minimum ${formatSize(MIN_SST_WRITE_BUFFER)}; using ${formatSize(MIN_SST_WRITE_BUFFER)}`,
    );
    mito.sst_write_buffer_size = MIN_SST_WRITE_BUFFER;
  }
  if (mito.scan_parallelism === 0) mito.scan_parallelism = Math.max(1, Math.floor(system.cpus / 4));
}

function checkExportMetrics(c: Checker, component: ComponentName, cfg: Record<string, any>): void {
  const em = cfg['export_metrics'];
  const url: string = em.remote_write.url;
  if (url !== '') {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      c.issue(['export_metrics', 'remote_write', 'url'], `invalid URL "${url}"; expected http://host:port/path or https://…`);
    }
  }
  if (!em.enable) return;
  if (em.write_interval <= 0) c.issue(['export_metrics', 'write_interval'], 'must be greater than 0 when export_metrics.enable is true');
  const canSelfImport = component === 'standalone' || component === 'frontend';
  if (url !== '' && canSelfImport && c.isSet(['export_metrics', 'self_import', 'db'])) {
    c.issue(['export_metrics', 'self_import', 'db'], 'set either export_metrics.self_import.db or export_metrics.remote_write.url, not both');
  }
  if (url === '' && !canSelfImport) {
    c.issue(['export_metrics', 'remote_write', 'url'], `required when export_metrics.enable is true (a ${component} exports by remote write only)`);
  }
  if (url === '' && canSelfImport && em.self_import.db === '') {
    c.issue(['export_metrics', 'self_import', 'db'], 'must name a database when export_metrics.enable is true');
  }
  // Checked here rather than at the first export: a header the HTTP client refuses would fail every export.
  // Values are never repeated in the message (they hold credentials).
  if (url !== '') {
    for (const [name, value] of Object.entries(em.remote_write.headers as Record<string, string>)) {
      if (!HEADER_NAME.test(name)) c.issue(['export_metrics', 'remote_write', 'headers'], `invalid HTTP header name ${JSON.stringify(name)}`);
      else if (!HEADER_VALUE.test(value)) c.issue(['export_metrics', 'remote_write', 'headers'], `the value of header ${name} has characters an HTTP header cannot carry (control characters or line breaks)`);
    }
  }
}

/** `[slow_query]`: a TTL the table option takes, and a log that has somewhere to go. */
function checkSlowQuery(c: Checker, fe: FrontendOptions): void {
  const sq = fe.slow_query;
  // Rows older than a TTL below a second would be gone before anyone reads them.
  if (sq.ttl !== 0 && sq.ttl < 1000) c.issue(['slow_query', 'ttl'], `must be 0s (keep forever) or at least 1s, got ${sq.ttl}ms`);
  if (!sq.enable) return;
  if (sq.record_type === 'log' && fe.logging.dir === undefined) {
    c.warnings.push('slow_query.record_type is "log" but logging.dir is unset: slow queries are only logged as warnings, no tsdb-slow-queries file is written');
  }
  if (sq.sample_ratio === 0) c.warnings.push('slow_query.sample_ratio is 0: no slow query is recorded');
}

/** An HTTP header name (RFC 9110 token) and value (visible ASCII and Latin-1, spaces and tabs inside). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
