import { array, command, flag, multioption, oneOf, optional, positional, string } from 'cmd-ts';
import { integer, option } from '../../args.js';
import { FILE_ROTATION_LIMITS } from '../../../core/observer/file-rotation.js';
import { out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { loadObserveState, restartNote } from './shared.js';

/**
 * `sf observe destination add <name> <spec>`: a local file, any OTLP/HTTP endpoint (headers from
 * environment variable references) or the Forge hub (a device credential created with your
 * `sf login`, stored 0600, or --token-env). An existing destination of that name is replaced.
 */
export const destinationAddCommand = command({
  name: 'add',
  description: 'Add (or replace) a destination: file:PATH, otlp:URL or hub[:URL]',
  args: {
    name: positional({ type: string, displayName: 'name' }),
    spec: positional({ type: string, displayName: 'file:PATH|otlp:URL|hub[:URL]' }),
    headerEnv: multioption({ long: 'header-env', type: array(string), description: 'HEADER=ENVVAR for OTLP endpoints; repeatable' }),
    tokenEnv: option({ long: 'token-env', type: optional(string), description: 'hub: ENVVAR holding a device credential instead of creating one' }),
    protocol: option({ long: 'protocol', type: optional(oneOf(['protobuf', 'json'] as const)), description: 'OTLP encoding (default protobuf)' }),
    maxMegabytes: option({ long: 'max-megabytes', type: optional(integer(FILE_ROTATION_LIMITS.maxMegabytes)), description: 'file: rotate the file when it would pass this size in MiB (default 100)' }),
    maxBackups: option({ long: 'max-backups', type: optional(integer(FILE_ROTATION_LIMITS.maxBackups)), description: 'file: rotated files to keep, PATH.1 newest (default 5; 0 keeps none)' }),
    json: flag({ long: 'json', description: 'print the destination as JSON' }),
  },
  handler: async (a) => {
    const [{ updateObserveConfig }, { checkName, describeDestination, fileRotationOptions, parseHeaderEnv }, { mergeDestinations, planDestinations, realizeDestinations }, { probeObserver }] = await Promise.all([
      import('../../../core/observer/config.js'), import('../../../core/observer/destination-spec.js'), import('./destination-input.js'), import('./observer-state.js'),
    ]);
    const state = await loadObserveState();
    const [planned] = await planDestinations([a.spec], state.config, { headers: parseHeaderEnv(a.headerEnv), tokenEnv: a.tokenEnv, protocol: a.protocol, rotation: fileRotationOptions(rotationWords(a)), cwd: process.cwd(), env: process.env }, checkName(a.name));
    const { configs, deviceId } = await realizeDestinations([planned], state.paths.home);
    // add or replace: decided under the config lock, as the write is
    let action: 'add' | 'replace' = 'add';
    const config = await updateObserveConfig(state.paths.config, (o) => {
      if (Array.isArray(o.destinations) && (o.destinations as { name?: unknown }[]).some((x) => x?.name === a.name)) action = 'replace';
      return { ...mergeDestinations(o, configs), ...(deviceId ? { deviceId } : {}) };
    });
    const d = config.destinations.find((x) => x.name === a.name)!;
    if (a.json) return printJson({ action, destination: d });
    out(`${action === 'add' ? 'added' : 'replaced'} destination ${sanitize(d.name)}: ${sanitize(describeDestination(d))}`);
    const missing = d.type === 'otlp' ? Object.values(d.headers ?? {}).filter((v) => typeof v === 'object' && 'env' in v && !process.env[v.env]) : [];
    for (const m of missing) out(`note: $${(m as { env: string }).env} is not set in this shell; the observer must have it in its environment (for the user service: ${sanitize(state.paths.home)}/observer.env)`);
    restartNote((await probeObserver(state)).running);
  },
});

/** The rotation options given, as the words core's fileRotationOptions takes (and range-checks again). */
function rotationWords(a: { maxMegabytes?: number; maxBackups?: number }): { maxMegabytes?: string; maxBackups?: string } {
  return { ...(a.maxMegabytes !== undefined ? { maxMegabytes: String(a.maxMegabytes) } : {}), ...(a.maxBackups !== undefined ? { maxBackups: String(a.maxBackups) } : {}) };
}
