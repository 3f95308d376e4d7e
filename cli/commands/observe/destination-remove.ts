import { command, flag, positional, string } from 'cmd-ts';
import { SfError } from '../../../core/errors/index.js';
import type { DestinationConfig } from '../../../core/observer/config.js';
import { out, printJson } from '../../output/print.js';
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
    const [{ updateObserveConfig }, { credentialFile, removeSecretFile }, { probeObserver }] = await Promise.all([
      import('../../../core/observer/config.js'), import('../../../core/observer/hub-device.js'), import('./observer-state.js'),
    ]);
    const state = await loadObserveState();
    // looked up under the config lock: another command may add or remove it meanwhile
    let d: DestinationConfig | undefined;
    await updateObserveConfig(state.paths.config, (o) => {
      const list = (o.destinations as DestinationConfig[] | undefined) ?? [];
      d = list.find((x) => x.name === name);
      if (!d) throw new SfError('SF_E_NOT_FOUND', `no destination named "${name}"`, { hint: `configured: ${list.map((x) => x.name).join(', ') || 'none'}` });
      return { ...o, destinations: list.filter((x) => x.name !== name) };
    });
    if (!d) return;
    const owned = d.type === 'hub' && 'file' in d.credential && d.credential.file === credentialFile(state.paths.home, name);
    if (owned) await removeSecretFile(credentialFile(state.paths.home, name));
    if (json) return printJson({ removed: name, credentialFileRemoved: owned });
    out(`removed destination ${sanitize(name)}${owned ? ' and its stored device credential (revoke it on the hub as well)' : ''}`);
    restartNote((await probeObserver(state)).running);
  },
});
