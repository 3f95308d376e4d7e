import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { resolve } from 'node:path';
import { SfError } from '../../../core/errors/index.js';
import { err, out, printJson } from '../../output/print.js';
import { sanitize, yellow } from '../../output/style.js';
import { hubTargetFor } from './hub-target.js';
import { withoutNulls } from '../../output/without-nulls.js';

/**
 * `sf skit pull owner/name[@version] [--out dir]`: downloads a release from its immutable URL,
 * verifies the archive sha256 and the bundle hash against the hub's record, and unpacks it safely
 * into a new directory (default ./<name>).
 */
export const pullCommand = command({
  name: 'pull',
  description: 'Download a SKIT release from the Forge hub, verify its hashes and unpack it',
  args: {
    ref: positional({ type: string, displayName: 'owner/name[@version]', description: 'SKIT on the hub, optionally with a release version' }),
    version: option({ long: 'version', type: optional(string), description: 'release version (default: latest, or the @version given)' }),
    out: option({ long: 'out', short: 'o', type: optional(string), description: 'directory to create (default ./<name>)' }),
    hub: option({ long: 'hub', type: optional(string), description: 'hub URL (default: the one you logged in to)' }),
    json: flag({ long: 'json', description: 'print the result as JSON' }),
  },
  handler: async (a) => {
    const { HubClient, fetchRelease, downloadRelease, parseSkitRef, quarantineWarning } = await import('../../../core/hub-client/index.js');
    const ref = parseSkitRef(a.ref);
    if (!ref) throw new SfError('SF_E_USAGE', `"${a.ref}" is not owner/name[@version]`, { hint: 'e.g. sf skit pull acme/kit@1.0.0' });
    if (a.version && ref.version && a.version !== ref.version) throw new SfError('SF_E_USAGE', `both @${ref.version} and --version ${a.version} given`, { hint: `give the version once: sf skit pull ${ref.id}@${a.version} or sf skit pull ${ref.id} --version ${a.version}` });
    const client = new HubClient(await hubTargetFor(a.hub, false));
    const release = await fetchRelease(client, ref.id, a.version ?? ref.version);
    const dest = resolve(a.out ?? ref.id.split('/')[1]);
    await downloadRelease(client, release, dest);
    if (release.deprecated && !a.json) {
      err(yellow(`warning: ${release.skitId}@${release.version} is deprecated: ${sanitize(release.deprecated.message)}${release.deprecated.replacement ? ` (use ${sanitize(release.deprecated.replacement)})` : ''}`, 'stderr'));
    }
    const quarantine = quarantineWarning(release);
    if (quarantine && !a.json) err(yellow(`warning: ${sanitize(quarantine.message)} (${sanitize(quarantine.hint)})`, 'stderr'));
    if (a.json) {
      printJson(withoutNulls({ skitId: release.skitId, version: release.version, bundleHash: release.bundleHash, dir: dest, skills: release.skills.map((s) => ({ id: s.id, hash: s.hash })), deprecated: release.deprecated, quarantined: release.quarantined }));
    }
    else out(`pulled ${sanitize(release.skitId)}@${sanitize(release.version)} into ${sanitize(dest)} (bundle ${release.bundleHash} verified)`);
  },
});
