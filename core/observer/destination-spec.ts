import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { SfError } from '../errors/index.js';
import { redactText } from '../sources/redact.js';
import type { DestinationConfig, FileDestination, HeaderValue, OtlpDestination } from './config.js';
import { FILE_ROTATION_LIMITS, type FileRotation } from './file-rotation.js';

/**
 * Command-line destination specs for `sf observe install --destination` and
 * `sf observe destination add`: `file:PATH`, `otlp:URL`, `hub` or `hub:URL`, optionally named
 * `NAME=<spec>`. Credentials are never part of a spec: OTLP headers come from environment
 * variable references (`--header-env Header=VAR`), a hub credential from a protected file or
 * `--token-env VAR`. Pure functions; the hub credential itself is created elsewhere.
 */

export type DestinationKind = 'file' | 'otlp' | 'hub';

export interface DestinationSpec {
  name?: string;
  kind: DestinationKind;
  /** the path (file), URL (otlp, hub) or undefined (hub: the logged-in default) */
  target?: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const ENV = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function usage(message: string, hint: string): never {
  throw new SfError('SF_E_USAGE', message, { hint });
}

/** Parses `[NAME=]file:PATH | [NAME=]otlp:URL | [NAME=]hub[:URL]`. */
export function parseDestinationSpec(raw: string): DestinationSpec {
  const m = /^([a-z0-9][a-z0-9_-]{0,62})=(.*)$/.exec(raw);
  const name = m && !m[1].includes(':') ? m[1] : undefined;
  const spec = name ? m![2] : raw;
  const colon = spec.indexOf(':');
  const kind = (colon < 0 ? spec : spec.slice(0, colon)).toLowerCase();
  const target = colon < 0 ? undefined : spec.slice(colon + 1);
  const hint = 'use file:PATH, otlp:URL, hub or hub:URL (optionally NAME=... in front)';
  if (kind !== 'file' && kind !== 'otlp' && kind !== 'hub') usage(`"${raw}" is not a destination`, hint);
  if ((kind === 'file' || kind === 'otlp') && !target) usage(`"${raw}" needs a ${kind === 'file' ? 'path' : 'URL'} after "${kind}:"`, hint);
  return { ...(name ? { name } : {}), kind, ...(target ? { target } : {}) };
}

/** Checks an OTLP/HTTP or hub base URL: http(s), no user:password, no query or fragment. */
export function checkEndpoint(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    usage(`"${redactText(url)}" is not a URL`, 'e.g. otlp:https://otel.example.com:4318');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') usage(`the endpoint ${url} must be http(s)`, 'OTLP/HTTP only; gRPC endpoints are not supported by the built-in fan-out');
  if (u.username || u.password) usage('the endpoint URL must not contain credentials', 'put the credential in an environment variable and pass --header-env Authorization=VAR');
  // named without its query: that is where API keys are put (?api_key=...)
  if (u.search || u.hash) usage(`the endpoint ${u.protocol}//${u.host}${u.pathname} must not have a query or fragment`, 'give the OTLP base URL; /v1/logs, /v1/traces and /v1/metrics are appended; put a key in a header with --header-env');
  const base = u.pathname.replace(/\/+$/, '');
  // a signal endpoint (what OTEL_EXPORTER_OTLP_LOGS_ENDPOINT holds) would become /v1/logs/v1/logs
  const signal = /\/v1\/(logs|traces|metrics)$/.exec(base);
  if (signal) usage(`the endpoint ${u.protocol}//${u.host}${base} names the ${signal[1]} signal path`, `give the OTLP base URL, otlp:${u.protocol}//${u.host}${base.slice(0, -signal[0].length)}; /v1/logs, /v1/traces and /v1/metrics are appended`);
  return `${u.protocol}//${u.host}${base}`;
}

/** Parses repeated `Header=ENVVAR` into header references (values are read only when sending). */
export function parseHeaderEnv(values: readonly string[]): Record<string, HeaderValue> {
  const out: Record<string, HeaderValue> = {};
  const hint = 'e.g. --header-env Authorization=OTEL_AUTH (the variable holds the whole header value; the value itself never goes on the command line)';
  for (const v of values) {
    // never echo what may be a secret: the part after "=" (often the value itself, pasted instead
    // of a variable name), or a header written "Name: value"
    const i = v.indexOf('=');
    if (i < 0) {
      usage(HEADER.test(v) ? `--header-env ${v} needs "=ENVVAR": the environment variable that holds the value of the ${v} header` : '--header-env needs HEADER=ENVVAR; what was given has no "=" (not shown: it may hold a secret)', hint);
    }
    const header = v.slice(0, i);
    const env = v.slice(i + 1);
    if (header === '') usage('--header-env =… has no header name before "="', hint);
    if (!HEADER.test(header)) {
      usage(header.includes(':') ? '--header-env: the part before "=" is not an HTTP header name: it holds a ":" (write Header=ENVVAR, not "Header: value"; not shown: it may hold a secret)' : `--header-env: "${header}" is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-, no spaces)`, hint);
    }
    if (!ENV.test(env)) usage(`--header-env ${header}=…: the part after "=" must name an environment variable (letters, digits and _, not starting with a digit), not hold the value`, hint);
    out[header] = { env };
  }
  return out;
}

/** Checks an environment variable name given on the command line (`--token-env`). */
export function checkEnvName(name: string, flag: string): string {
  if (!ENV.test(name)) usage(`${flag} needs an environment variable name, not "${name}"`, `e.g. ${flag} FORGE_DEVICE_TOKEN (the value is read by the observer, never stored)`);
  return name;
}

/** A name not in `taken`: `base`, else `base-2`, `base-3`, ... */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

export function checkName(name: string): string {
  if (!NAME.test(name)) usage(`"${name}" is not a destination name`, 'use lowercase letters, digits, "_" and "-" (e.g. local, team-otel)');
  return name;
}

/** `--max-megabytes` / `--max-backups` of a file destination (undefined when neither was given). */
export function fileRotationOptions(given: { maxMegabytes?: string; maxBackups?: string }): Partial<FileRotation> | undefined {
  const out: Partial<FileRotation> = {};
  for (const key of ['maxMegabytes', 'maxBackups'] as const) {
    const raw = given[key];
    if (raw === undefined) continue;
    const flag = key === 'maxMegabytes' ? '--max-megabytes' : '--max-backups';
    const { min, max } = FILE_ROTATION_LIMITS[key];
    const n = /^\d{1,8}$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= min && n <= max)) usage(`${flag} ${raw} is not a whole number from ${min} to ${max}`, `e.g. ${flag} ${key === 'maxMegabytes' ? 100 : 5}`);
    out[key] = n;
  }
  return Object.keys(out).length ? out : undefined;
}

export function fileDestination(name: string, path: string, cwd: string, rotation?: Partial<FileRotation>): FileDestination {
  // `file:~/obs.jsonl` means the home directory, as it would in a shell (no shell expands it inside the spec)
  const expanded = path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
  const abs = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  if (existsSync(abs) && statSync(abs).isDirectory()) usage(`file:${path} is a directory`, `name a file in it, e.g. file:${join(abs, 'observations.jsonl')}`);
  return { name: checkName(name), type: 'file', path: abs, ...(rotation ? { rotation } : {}) };
}

export function otlpDestination(name: string, url: string, headers: Record<string, HeaderValue>, protocol?: 'protobuf' | 'json'): OtlpDestination {
  return { name: checkName(name), type: 'otlp', endpoint: checkEndpoint(url), ...(Object.keys(headers).length ? { headers } : {}), ...(protocol ? { protocol } : {}) };
}

/** A one-line description for listings (never a credential: references only). */
export function describeDestination(d: DestinationConfig): string {
  if (d.type === 'file') {
    const r = d.rotation ?? {};
    const rotation = [r.maxMegabytes !== undefined && `rotates at ${r.maxMegabytes} MiB`, r.maxBackups !== undefined && `keeps ${r.maxBackups} rotated`].filter(Boolean);
    return `file ${d.path}${rotation.length ? ` (${rotation.join(', ')})` : ''}`;
  }
  if (d.type === 'hub') return `hub ${d.endpoint} (credential: ${'env' in d.credential ? `$${d.credential.env}` : d.credential.file})`;
  const refs = Object.entries(d.headers ?? {}).map(([k, v]) => `${k} from ${typeof v === 'string' ? 'a literal' : 'env' in v ? `$${v.env}` : v.file}`);
  return `otlp ${d.endpoint}${d.protocol ? ` (${d.protocol})` : ''}${refs.length ? `; headers: ${refs.join(', ')}` : ''}`;
}
