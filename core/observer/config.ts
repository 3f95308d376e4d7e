import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SfError, hasErrno, isSfError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { withFileLock } from '../fs/file-lock.js';
import { lineColumn } from '../text/line-column.js';
import { FILE_ROTATION_LIMITS, type FileRotation } from './file-rotation.js';

/**
 * The `observe` key of $SF_HOME/config.json. Other keys of the file are preserved on every
 * write. Credentials never live here: headers and the hub credential are references to
 * environment variables or protected files, resolved only when a request is sent.
 */

/** A header value: a literal (non-secret) string, or a reference resolved at send time. */
export type HeaderValue = string | { env: string } | { file: string };

export interface HubDestination {
  name: string;
  type: 'hub';
  /** hub base URL; /v1/logs, /v1/traces, /v1/metrics are appended */
  endpoint: string;
  /** the device credential (telemetry-write scope), sent as `Authorization: Bearer <credential>` */
  credential: { env: string } | { file: string };
  protocol?: 'protobuf' | 'json';
}

export interface OtlpDestination {
  name: string;
  type: 'otlp';
  /** OTLP/HTTP base URL; /v1/<signal> is appended */
  endpoint: string;
  headers?: Record<string, HeaderValue>;
  protocol?: 'protobuf' | 'json';
}

export interface FileDestination {
  name: string;
  type: 'file';
  /** absolute path of an OTLP JSON-lines file (one Export*ServiceRequest per line) */
  path: string;
  /** size cap and rotated files kept (file-rotation.ts; defaults DEFAULT_FILE_ROTATION) */
  rotation?: Partial<FileRotation>;
}

export type DestinationConfig = HubDestination | OtlpDestination | FileDestination;

/** An `sf observe link` mapping: sessions under `path` belong to `repository`. */
export interface RepositoryLink {
  /** e.g. `owner/repo` */
  repository: string;
  /** absolute path of the repository or worktree root */
  path: string;
}

export interface ObserveConfig {
  receiver: { port: number };
  /** the user opted in to content collection (local skill paths and the current commit on events) */
  content: { enabled: boolean };
  destinations: DestinationConfig[];
  links: RepositoryLink[];
  /** bounded retry queue per destination */
  queue: { maxRecords: number; maxAgeHours: number };
  /** batching of normalized records before they are queued */
  batch: { maxRecords: number; delayMs: number };
  /** client metrics export interval */
  metrics: { intervalMs: number };
  /** use a pinned otelcol-contrib instead of the built-in fan-out, when its binary verifies */
  collector: { enabled: boolean; binary?: string; port: number };
  /** forge.device.id resource attribute (set when a hub device credential was created) */
  deviceId?: string;
}

export const DEFAULT_OBSERVE_CONFIG: ObserveConfig = {
  receiver: { port: 14318 },
  content: { enabled: false },
  destinations: [],
  links: [],
  queue: { maxRecords: 50_000, maxAgeHours: 24 },
  batch: { maxRecords: 512, delayMs: 1000 },
  metrics: { intervalMs: 60_000 },
  collector: { enabled: false, port: 14317 },
};

const DEST_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `hint`: how to fix it when that is not editing the file by hand (a destination: remove it with its command). */
function bad(pointer: string, message: string, file: string, hint?: string): never {
  const at = pointer ? `observe.${pointer}` : 'observe';
  throw new SfError('SF_E_CONFIG', `${file}: ${at}: ${message}`, { location: { file, pointer: at }, hint: hint ?? `fix "${at}" in ${file} by hand (or remove it to get the default)` });
}

function checkRef(v: unknown, at: string, file: string, hint?: string): void {
  const o = v as Record<string, unknown>;
  if (typeof v === 'string') return;
  if (o && typeof o.env === 'string' && ENV_NAME.test(o.env)) return;
  if (o && typeof o.file === 'string' && o.file.startsWith('/')) return;
  bad(at, 'must be a string, {"env": "NAME"} or {"file": "/absolute/path"}', file, hint);
}

function checkRotation(v: unknown, at: string, file: string, hint?: string): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(at, 'must be an object {"maxMegabytes": N, "maxBackups": N}', file, hint);
  for (const [k, value] of Object.entries(v as Record<string, unknown>)) {
    const limits = FILE_ROTATION_LIMITS[k as keyof typeof FILE_ROTATION_LIMITS];
    if (!limits) bad(`${at}.${k}`, 'is not a rotation setting (maxMegabytes, maxBackups)', file, hint);
    if (!Number.isInteger(value) || (value as number) < limits.min || (value as number) > limits.max) bad(`${at}.${k}`, `must be a whole number from ${limits.min} to ${limits.max}`, file, hint);
  }
}

function checkDestination(d: unknown, i: number, file: string): DestinationConfig {
  const o = (d ?? {}) as Record<string, unknown>;
  const at = `destinations[${i}]`;
  if (typeof o.name !== 'string' || !DEST_NAME.test(o.name)) bad(`${at}.name`, 'must be a lowercase name (a-z, 0-9, _ and -)', file);
  // `destination remove` works on a config.json with a bad entry: the way out this hint names
  const fix = `fix the entry in ${file}, or remove it: \`sf observe destination remove ${o.name}\``;
  if (o.type === 'file') {
    if (typeof o.path !== 'string' || !o.path.startsWith('/')) bad(`${at}.path`, 'must be an absolute path', file, fix);
    if (o.rotation !== undefined) checkRotation(o.rotation, `${at}.rotation`, file, fix);
  } else if (o.type === 'hub' || o.type === 'otlp') {
    if (typeof o.endpoint !== 'string' || !/^https?:\/\/[^\s]+$/.test(o.endpoint)) bad(`${at}.endpoint`, 'must be an http(s) URL', file, fix);
    if (/^https?:\/\/[^/]*@/.test(o.endpoint as string)) bad(`${at}.endpoint`, 'must not contain credentials; use a header reference', file, fix);
    if (o.protocol !== undefined && o.protocol !== 'protobuf' && o.protocol !== 'json') bad(`${at}.protocol`, 'must be "protobuf" or "json"', file, fix);
    if (o.type === 'hub') {
      if (typeof o.credential !== 'object' || o.credential === null) bad(`${at}.credential`, 'must be {"env": "NAME"} or {"file": "/absolute/path"}', file, fix);
      checkRef(o.credential, `${at}.credential`, file, fix);
    } else for (const [k, v] of Object.entries((o.headers ?? {}) as Record<string, unknown>)) checkRef(v, `${at}.headers.${k}`, file, fix);
  } else bad(`${at}.type`, 'must be "hub", "otlp" or "file"', file, fix);
  return o as unknown as DestinationConfig;
}

/**
 * Bounds of the numeric tuning settings: a value outside them is a mistake, not a preference
 * (metrics every 0 ms exported in a busy loop, a negative queue dropped everything, a string age
 * never expired anything).
 */
export const NUMERIC_SETTINGS = {
  'queue.maxRecords': { min: 1, max: 10_000_000, integer: true },
  'queue.maxAgeHours': { min: 0.001, max: 8760, integer: false },
  'batch.maxRecords': { min: 1, max: 100_000, integer: true },
  'batch.delayMs': { min: 0, max: 3_600_000, integer: true },
  'metrics.intervalMs': { min: 1000, max: 86_400_000, integer: true },
  'collector.port': { min: 1, max: 65535, integer: true },
} as const;

/** `observe.<section>.<key>`, checked against NUMERIC_SETTINGS (absent: the default). */
function numberSetting(o: Record<string, any>, path: keyof typeof NUMERIC_SETTINGS, fallback: number, file: string): number {
  const [section, key] = path.split('.');
  const group = o[section];
  if (group !== undefined && (group === null || typeof group !== 'object' || Array.isArray(group))) bad(section, 'must be an object', file);
  const v = group?.[key];
  if (v === undefined) return fallback;
  const { min, max, integer } = NUMERIC_SETTINGS[path];
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    bad(path, `must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max} (got ${JSON.stringify(v)})`, file);
  }
  return v;
}

/** Parses the `observe` object (undefined: defaults); throws SF_E_CONFIG naming the bad entry. */
export function parseObserveConfig(raw: unknown, file = 'config.json'): ObserveConfig {
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) bad('', 'must be a JSON object', file);
  const o = (raw ?? {}) as Record<string, any>;
  const d = DEFAULT_OBSERVE_CONFIG;
  const destinations = Array.isArray(o.destinations) ? o.destinations.map((x: unknown, i: number) => checkDestination(x, i, file)) : [];
  const names = new Set<string>();
  for (const x of destinations) {
    if (names.has(x.name)) bad('destinations', `two destinations are named "${x.name}"`, file, `rename one of them in ${file}, or remove both: \`sf observe destination remove ${x.name}\``);
    names.add(x.name);
  }
  const links: RepositoryLink[] = Array.isArray(o.links) ? o.links : [];
  links.forEach((l, i) => {
    if (typeof l?.repository !== 'string' || !/^[^\s/]+\/[^\s]+$/.test(l.repository)) bad(`links[${i}].repository`, 'must look like owner/repo', file);
    if (typeof l?.path !== 'string' || !l.path.startsWith('/')) bad(`links[${i}].path`, 'must be an absolute path', file);
  });
  const port = o.receiver?.port ?? d.receiver.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) bad('receiver.port', 'must be a TCP port (0-65535)', file);
  return {
    receiver: { port },
    content: { enabled: o.content?.enabled === true },
    destinations,
    links,
    queue: { maxRecords: numberSetting(o, 'queue.maxRecords', d.queue.maxRecords, file), maxAgeHours: numberSetting(o, 'queue.maxAgeHours', d.queue.maxAgeHours, file) },
    batch: { maxRecords: numberSetting(o, 'batch.maxRecords', d.batch.maxRecords, file), delayMs: numberSetting(o, 'batch.delayMs', d.batch.delayMs, file) },
    metrics: { intervalMs: numberSetting(o, 'metrics.intervalMs', d.metrics.intervalMs, file) },
    collector: { enabled: o.collector?.enabled === true, ...(typeof o.collector?.binary === 'string' ? { binary: o.collector.binary } : {}), port: numberSetting(o, 'collector.port', d.collector.port, file) },
    ...(typeof o.deviceId === 'string' ? { deviceId: o.deviceId } : {}),
  };
}

async function readWhole(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return {};
    throw e;
  }
  let v: unknown;
  try {
    v = JSON.parse(text) as unknown;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    // "Expected ',' or '}' after property value in JSON at position 52": where, as line:column
    const at = /at position (\d+)/.exec(e.message);
    const { line, column } = lineColumn(text, at ? Number(at[1]) : text.length);
    const reason = e.message.replace(/ in JSON at position \d+.*$/s, '').replace(/ \(line \d+ column \d+\)$/, '');
    throw new SfError('SF_E_CONFIG', `${file}:${line}:${column}: not valid JSON: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`, {
      location: { file, line, column }, hint: 'fix the file by hand (or move it away); `sf observe uninstall` works without it',
    });
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  throw new SfError('SF_E_CONFIG', `${file}: the top level is not a JSON object`, { location: { file, line: 1, column: 1 }, hint: 'fix the file by hand or move it away' });
}

/** Reads and validates the `observe` key of config.json (defaults when absent). */
export async function readObserveConfig(configFile: string): Promise<ObserveConfig> {
  return parseObserveConfig((await readWhole(configFile)).observe, configFile);
}

/**
 * The observe config for a command that must work while it is invalid (`uninstall`,
 * `destination remove`: the ways out): the defaults, plus the problem to mention.
 */
export async function readObserveConfigLeniently(configFile: string): Promise<{ config: ObserveConfig; problem?: SfError }> {
  try {
    return { config: await readObserveConfig(configFile) };
  } catch (e) {
    if (!isSfError(e, 'SF_E_CONFIG')) throw e;
    return { config: DEFAULT_OBSERVE_CONFIG, problem: e };
  }
}

type ObserveEdit = (observe: Record<string, unknown>) => Record<string, unknown>;

async function readModifyWrite<T>(configFile: string, edit: ObserveEdit, check: (next: Record<string, unknown>) => T): Promise<T> {
  await mkdir(dirname(configFile), { recursive: true, mode: 0o700 });
  // one read-modify-write at a time: ten `destination add` at once kept eight (each wrote the file it read)
  return withFileLock(`${configFile}.sf-lock`, async () => {
    const whole = await readWhole(configFile);
    const next = edit(structuredClone((whole.observe as Record<string, unknown>) ?? {}));
    const parsed = check(next);
    await writeFileAtomic(configFile, JSON.stringify({ ...whole, observe: next }, null, 2) + '\n', { mode: 0o600 });
    return parsed;
  }, { what: configFile, waitMs: 30_000 });
}

/**
 * Read-modify-write of the `observe` key (the raw JSON object, so unknown keys survive), keeping
 * every other key of config.json. The result is validated before it is written (0600, atomic).
 */
export function updateObserveConfig(configFile: string, edit: ObserveEdit): Promise<ObserveConfig> {
  return readModifyWrite(configFile, edit, (next) => parseObserveConfig(next, configFile));
}

/**
 * The same for an edit that only takes something out (`destination remove`): written even when
 * the result is still invalid elsewhere (taking out a bad entry must not wait for the others to
 * be fixed); the problem left, if any, comes back with the config.
 */
export function removeFromObserveConfig(configFile: string, edit: ObserveEdit): Promise<{ config: ObserveConfig; problem?: SfError }> {
  return readModifyWrite(configFile, edit, (next) => {
    try {
      return { config: parseObserveConfig(next, configFile) };
    } catch (e) {
      if (!isSfError(e, 'SF_E_CONFIG')) throw e;
      return { config: DEFAULT_OBSERVE_CONFIG, problem: e };
    }
  });
}
