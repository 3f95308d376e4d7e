import { command, flag, positional, string } from 'cmd-ts';
import { SfError } from '../../../core/errors/index.js';
import type { DestinationConfig } from '../../../core/observer/config.js';
import { err, out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { loadObserveState, restartNote } from './shared.js';

/**
 * `sf observe destination remove <name>`: removes the destination and the device credential file
 * Forge stored for it (revoke the credential on the hub too). Its queued records are dropped by
 * the observer at its next start.
 */
export const destinationRemoveCommand = command({
  name: 'remove',
  description: 'Remove a destination (and the credential file Forge stored for it)',
  args: {
    name: positional({ type: string, displayName: 'name' }),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: async ({ name, json }) => {
    const [{ removeFromObserveConfig }, { credentialFile, removeSecretFile }, { probeObserver }] = await Promise.all([
      import('../../../core/observer/config.js'), import('../../../core/observer/hub-device.js'), import('./observer-state.js'),
    ]);
    // the way out of a config.json with a bad destination in it: works while it does not validate
    const state = await loadObserveState(process.env, undefined, { lenient: true });
    // looked up under the config lock: another command may add or remove it meanwhile
    let d: DestinationConfig | undefined;
    const { problem } = await removeFromObserveConfig(state.paths.config, (o) => {
      // as written, checked or not: a bad entry is what this command takes out
      const list = (Array.isArray(o.destinations) ? o.destinations : []) as DestinationConfig[];
      d = list.find((x) => x?.name === name);
      if (!d) throw new SfError('SF_E_NOT_FOUND', `no destination named "${name}"`, { hint: `configured: ${list.map((x) => x?.name).filter((x) => typeof x === 'string').join(', ') || 'none'}` });
      return { ...o, destinations: list.filter((x) => x?.name !== name) };
    });
    if (!d) return;
    const cred: unknown = d.type === 'hub' ? d.credential : undefined;
    const owned = !!cred && typeof cred === 'object' && (cred as { file?: unknown }).file === credentialFile(state.paths.home, name);
    if (owned) await removeSecretFile(credentialFile(state.paths.home, name));
    if (json) return printJson({ removed: name, credentialFileRemoved: owned });
    out(`removed destination ${sanitize(name)}${owned ? ' and its stored device credential (revoke it on the hub as well)' : ''}`);
    if (problem) err(`note: ${sanitize(problem.message)}${problem.hint ? `; ${sanitize(problem.hint)}` : ''}`);
    restartNote((await probeObserver(state)).running);
  },
});
