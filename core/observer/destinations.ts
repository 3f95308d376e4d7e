import { readFile } from 'node:fs/promises';
import { SfError, hasErrno } from '../errors/index.js';
import type { DestinationConfig, HeaderValue } from './config.js';
import { DEFAULT_FILE_ROTATION, type FileRotation } from './file-rotation.js';

/**
 * Destinations as the delivery workers use them. Header values that reference an environment
 * variable or a protected file are resolved at send time (never stored, never logged); a missing
 * reference is a retryable delivery error that names the reference, not a value.
 */

export interface HttpTarget {
  kind: 'http';
  name: string;
  type: 'hub' | 'otlp';
  /** base URL without a trailing slash */
  endpoint: string;
  protocol: 'protobuf' | 'json';
  headers(): Promise<Record<string, string>>;
}

export interface FileTarget {
  kind: 'file';
  name: string;
  type: 'file';
  path: string;
  rotation: FileRotation;
}

export type Target = HttpTarget | FileTarget;

async function resolveRef(ref: HeaderValue, env: NodeJS.ProcessEnv, what: string): Promise<string> {
  if (typeof ref === 'string') return ref;
  if ('env' in ref) {
    const v = env[ref.env];
    if (v === undefined || v === '') throw new SfError('SF_E_CONFIG', `${what}: environment variable ${ref.env} is not set`, { hint: `export ${ref.env} in the observer's environment (service file or shell)` });
    return v;
  }
  try {
    return (await readFile(ref.file, 'utf8')).trim();
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'EACCES')) throw new SfError('SF_E_CONFIG', `${what}: credential file ${ref.file} is missing or unreadable`, { hint: 'run `sf observe destination add` again to store the credential' });
    throw e;
  }
}

/** Turns configured destinations into delivery targets. */
export function resolveTargets(destinations: readonly DestinationConfig[], env: NodeJS.ProcessEnv = process.env): Target[] {
  return destinations.map((d): Target => {
    if (d.type === 'file') return { kind: 'file', name: d.name, type: 'file', path: d.path, rotation: { ...DEFAULT_FILE_ROTATION, ...d.rotation } };
    const endpoint = d.endpoint.replace(/\/+$/, '');
    const protocol = d.protocol ?? 'protobuf';
    if (d.type === 'hub') {
      return { kind: 'http', name: d.name, type: 'hub', endpoint, protocol, headers: async () => ({ authorization: `Bearer ${await resolveRef(d.credential, env, `destination ${d.name} credential`)}` }) };
    }
    return {
      kind: 'http', name: d.name, type: 'otlp', endpoint, protocol,
      async headers() {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(d.headers ?? {})) out[k.toLowerCase()] = await resolveRef(v, env, `destination ${d.name} header ${k}`);
        return out;
      },
    };
  });
}
