import { stringify } from 'yaml';
import type { DestinationConfig, HeaderValue } from '../config.js';
import { BLOCKED_KEY_PATTERN, BLOCKED_VALUE_PATTERNS, IDENTITY_KEYS } from '../redact.js';

/**
 * The inspectable, standards-compatible otelcol-contrib configuration Forge manages: an OTLP/HTTP
 * receiver on 127.0.0.1 (the observer exports to it), memory_limiter -> redaction -> batch, one
 * exporter per destination (otlp_http with a file_storage-backed persistent sending queue and
 * retry_on_failure; file exporter for local files). Credentials never appear in it: every secret
 * is an `${env:NAME}` reference that the supervisor fills in the collector's environment.
 * Pure: data in, YAML out.
 */

export interface CollectorConfigInput {
  /** port of the collector's OTLP/HTTP receiver (127.0.0.1) */
  receiverPort: number;
  /** directory of the file_storage extension (persistent queues) */
  storageDir: string;
  destinations: readonly DestinationConfig[];
  /** memory_limiter hard limit */
  memoryLimitMib?: number;
}

/** An environment variable the collector needs and where its value comes from. */
export interface CollectorEnvRef {
  name: string;
  from: { env: string } | { file: string };
}

export interface CollectorConfig {
  config: Record<string, unknown>;
  /** variables to set in the collector's environment (values resolved by the supervisor) */
  env: CollectorEnvRef[];
}

const envName = (dest: string, what: string) => `SF_OBSERVE_${dest}_${what}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

function headerValue(dest: string, header: string, v: HeaderValue, env: CollectorEnvRef[]): string {
  if (typeof v === 'string') return v;
  const name = envName(dest, header);
  env.push({ name, from: v });
  return `\${env:${name}}`;
}

/** Exporter id of a destination in the generated config. */
export function exporterId(d: DestinationConfig): string {
  return d.type === 'file' ? `file/${d.name}` : `otlp_http/${d.name}`;
}

/** Builds the managed collector configuration for `input`. */
export function buildCollectorConfig(input: CollectorConfigInput): CollectorConfig {
  const env: CollectorEnvRef[] = [];
  const exporters: Record<string, unknown> = {};
  for (const d of input.destinations) {
    if (d.type === 'file') {
      exporters[exporterId(d)] = { path: d.path, format: 'json', rotation: { max_megabytes: 50, max_days: 14, max_backups: 10 } };
      continue;
    }
    const headers: Record<string, string> = {};
    if (d.type === 'hub') headers.Authorization = `Bearer ${headerValue(d.name, 'credential', d.credential, env)}`;
    else for (const [k, v] of Object.entries(d.headers ?? {})) headers[k] = headerValue(d.name, k, v, env);
    exporters[exporterId(d)] = {
      endpoint: d.endpoint.replace(/\/+$/, ''),
      encoding: d.protocol === 'json' ? 'json' : 'proto',
      compression: 'gzip',
      timeout: '10s',
      ...(Object.keys(headers).length ? { headers } : {}),
      retry_on_failure: { enabled: true, initial_interval: '5s', max_interval: '30s', max_elapsed_time: '24h' },
      sending_queue: { enabled: true, storage: 'file_storage/queue', num_consumers: 2, queue_size: 5000 },
    };
  }
  const exporterIds = Object.keys(exporters);
  const pipeline = { receivers: ['otlp'], processors: ['memory_limiter', 'redaction', 'batch'], exporters: exporterIds };
  return {
    env,
    config: {
      extensions: {
        'file_storage/queue': { directory: input.storageDir, create_directory: true, compaction: { on_start: true, on_rebound: true, directory: input.storageDir } },
      },
      receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${input.receiverPort}` } } } },
      processors: {
        memory_limiter: { check_interval: '1s', limit_mib: input.memoryLimitMib ?? 256, spike_limit_mib: Math.round((input.memoryLimitMib ?? 256) / 4) },
        // identity values pass unchanged: the observer's own redaction already masked the unconfirmed ones
        redaction: { allow_all_keys: true, ignored_keys: [...IDENTITY_KEYS], blocked_key_patterns: [BLOCKED_KEY_PATTERN], blocked_values: [...BLOCKED_VALUE_PATTERNS], summary: 'silent' },
        batch: { send_batch_size: 1024, timeout: '5s' },
      },
      exporters,
      service: {
        extensions: ['file_storage/queue'],
        pipelines: exporterIds.length ? { logs: pipeline, traces: { ...pipeline }, metrics: { ...pipeline } } : {},
      },
    },
  };
}

export const MANAGED_HEADER = [
  '# Managed by Forge (`sf observe`). Do not edit: `sf observe update` rewrites this file.',
  '# Add your own components in conf.d/*.yaml next to it; those fragments are loaded after this file',
  '# (maps merge, lists replace: a fragment that sets a pipeline list restates it in full) and survive updates.',
  '# Fragments that drop the `redaction` processor from a pipeline disable Forge\'s redaction for it.',
].join('\n');

/** YAML text of a managed config (with the do-not-edit header). */
export function renderCollectorConfig(config: Record<string, unknown>): string {
  return `${MANAGED_HEADER}\n${stringify(config, { lineWidth: 0, sortMapEntries: false, aliasDuplicateObjects: false })}`;
}
