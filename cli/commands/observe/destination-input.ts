import type { DestinationConfig, HeaderValue, ObserveConfig } from '../../../core/observer/config.js';
import type { FileRotation } from '../../../core/observer/file-rotation.js';
import { SfError } from '../../../core/errors/index.js';
import {
  checkEndpoint, checkEnvName, fileDestination, otlpDestination, parseDestinationSpec, uniqueName, type DestinationSpec,
} from '../../../core/observer/destination-spec.js';
import { assertCredentialTransport } from '../../../core/hub-client/transport.js';
import { createDeviceCredential, hubForObserve } from '../../../core/observer/hub-device.js';

/**
 * Turns command-line destination specs into configured destinations. Planning (`plan`) touches
 * nothing; `realize` creates what the plan needs outside config.json (a hub device credential).
 * A spec equal to a configured destination (same type and endpoint or path) updates it in place,
 * so running the same install twice adds nothing.
 */

export interface DestinationOptions {
  headers: Record<string, HeaderValue>;
  tokenEnv?: string;
  protocol?: 'protobuf' | 'json';
  /** file destinations: size cap and rotated files kept */
  rotation?: Partial<FileRotation>;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface PlannedDestination {
  action: 'add' | 'update';
  /** for a hub without --token-env, the credential is created by `realize` */
  config: DestinationConfig;
  createCredential?: { url: string; token?: string };
}

const sameTarget = (a: DestinationConfig, b: DestinationConfig) =>
  a.type === b.type && (a.type === 'file' ? a.path === (b as typeof a).path : a.endpoint === (b as { endpoint: string }).endpoint);

async function build(spec: DestinationSpec, name: string, o: DestinationOptions): Promise<{ config: DestinationConfig; createCredential?: PlannedDestination['createCredential'] }> {
  if (o.rotation && spec.kind !== 'file') throw new SfError('SF_E_USAGE', `--max-megabytes and --max-backups apply to file destinations, not ${spec.kind}`, { hint: 'leave them out, or give a file:PATH destination' });
  if (o.protocol && spec.kind === 'file') throw new SfError('SF_E_USAGE', '--protocol applies to otlp and hub destinations; a file destination always holds OTLP/JSON lines', { hint: 'leave --protocol out' });
  if (spec.kind === 'file') return { config: fileDestination(name, spec.target!, o.cwd, o.rotation) };
  if (spec.kind === 'otlp') return { config: otlpDestination(name, spec.target!, o.headers, o.protocol) };
  const hub = await hubForObserve(spec.target ? checkEndpoint(spec.target) : undefined, o.env);
  const endpoint = checkEndpoint(hub.url);
  // the observer sends the device credential with every export
  assertCredentialTransport(endpoint, o.env);
  if (o.tokenEnv) return { config: { name, type: 'hub', endpoint, credential: { env: checkEnvName(o.tokenEnv, '--token-env') }, ...(o.protocol ? { protocol: o.protocol } : {}) } };
  return { config: { name, type: 'hub', endpoint, credential: { file: '(created on --yes)' } }, createCredential: { url: hub.url, ...(hub.token ? { token: hub.token } : {}) } };
}

/** Plans the destinations for `raw` specs against the configured ones. */
export async function planDestinations(raw: readonly string[], current: ObserveConfig, o: DestinationOptions, forcedName?: string): Promise<PlannedDestination[]> {
  const specs = raw.map(parseDestinationSpec);
  refuseUnused(specs, o);
  const taken = new Set(current.destinations.map((d) => d.name));
  const named = new Set<string>();
  const out: PlannedDestination[] = [];
  for (const spec of specs) {
    // a name given twice is a mistake, not two destinations (one renamed behind the user's back)
    if (spec.name && named.has(spec.name)) throw new SfError('SF_E_USAGE', `two destinations are named "${spec.name}"`, { hint: 'give each --destination NAME=... its own name' });
    if (spec.name) named.add(spec.name);
    const base = forcedName ?? spec.name ?? (spec.kind === 'file' ? 'local' : spec.kind);
    const probe = await build(spec, base, o);
    const existing = current.destinations.find((d) => (spec.name || forcedName ? d.name === base : sameTarget(d, probe.config)));
    const name = existing ? existing.name : uniqueName(base, taken);
    taken.add(name);
    const { config, createCredential } = name === base ? probe : await build(spec, name, o);
    // a hub destination that already has a stored credential keeps it
    if (existing?.type === 'hub' && config.type === 'hub' && createCredential && 'file' in existing.credential) {
      out.push({ action: 'update', config: { ...config, credential: existing.credential } });
      continue;
    }
    out.push({ action: existing ? 'update' : 'add', config, ...(createCredential ? { createCredential } : {}) });
  }
  return out;
}

/** Options for a kind of destination that none of `specs` is: refused, not silently ignored. */
function refuseUnused(specs: readonly DestinationSpec[], o: DestinationOptions): void {
  const has = (k: DestinationSpec['kind']) => specs.some((s) => s.kind === k);
  if (Object.keys(o.headers).length && !has('otlp')) {
    throw new SfError('SF_E_USAGE', '--header-env applies to an otlp destination, and none is given here', { hint: 'give it with the OTLP destination it belongs to (--destination NAME=otlp:URL), or use `sf observe destination add NAME otlp:URL --header-env H=VAR`' });
  }
  if (o.tokenEnv && !has('hub')) {
    throw new SfError('SF_E_USAGE', '--token-env applies to a hub destination, and none is given here', { hint: 'give it with the hub destination (--destination hub or hub:URL), or leave it out' });
  }
}

/** Creates hub device credentials; returns the final configs and a device id (for forge.device.id). */
export async function realizeDestinations(planned: readonly PlannedDestination[], sfHome: string): Promise<{ configs: DestinationConfig[]; deviceId?: string }> {
  const configs: DestinationConfig[] = [];
  let deviceId: string | undefined;
  for (const p of planned) {
    if (p.createCredential && p.config.type === 'hub') {
      const cred = await createDeviceCredential(sfHome, p.config.name, p.createCredential);
      deviceId = cred.id;
      configs.push({ ...p.config, credential: { file: cred.file } });
    } else configs.push(p.config);
  }
  return { configs, ...(deviceId ? { deviceId } : {}) };
}

/** The raw `observe` object with `configs` merged in (replacing same-named entries). */
export function mergeDestinations(observe: Record<string, unknown>, configs: readonly DestinationConfig[]): Record<string, unknown> {
  const list = (Array.isArray(observe.destinations) ? observe.destinations : []) as DestinationConfig[];
  const names = new Set(configs.map((c) => c.name));
  return { ...observe, destinations: [...list.filter((d) => !names.has(d.name)), ...configs] };
}
