import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { resolve } from 'node:path';
import { SfError, type Diagnostic } from '../../../core/errors/index.js';
import { out, printDiagnostics, printJson, printRows } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { hubTargetFor } from './hub-target.js';
import { withoutNulls } from '../../output/without-nulls.js';
import type { PublishedRelease } from '../../../core/hub-client/index.js';
import type { SkitHashes } from '../../../core/skit/hash.js';

const VISIBILITIES = ['public', 'unlisted', 'private'];

/**
 * `sf skit publish [path] --version x.y.z`: validates the SKIT (refusing on any error), packs it
 * deterministically, and uploads it with the bundle hash it computed; the hub recomputes every
 * hash and refuses a mismatch.
 */
export const publishCommand = command({
  name: 'publish',
  description: 'Validate, pack and publish a SKIT release to the Forge hub',
  args: {
    path: positional({ type: optional(string), displayName: 'path', description: 'SKIT or single-skill directory (default: the current directory)' }),
    version: option({ long: 'version', type: string, description: 'the release version (semver x.y.z)' }),
    visibility: option({ long: 'visibility', type: optional(string), description: 'public (default for a new SKIT), unlisted or private' }),
    id: option({ long: 'id', type: optional(string), description: 'owner/name for a single-skill directory (a SKIT README declares its own)' }),
    hub: option({ long: 'hub', type: optional(string), description: 'hub URL (default: the one you logged in to)' }),
    json: flag({ long: 'json', description: 'print the hub response as JSON' }),
    allowSecrets: flag({ long: 'allow-secrets', description: 'publish even files that look like secrets (.env, private keys, ...)' }),
  },
  handler: async (a) => {
    if (a.visibility !== undefined && !VISIBILITIES.includes(a.visibility)) {
      throw new SfError('SF_E_USAGE', `--visibility must be one of ${VISIBILITIES.join(', ')}`, { hint: 'e.g. --visibility public, or leave it out to keep the current visibility' });
    }
    const { parseSemver } = await import('../../../core/skit/semver.js');
    if (!parseSemver(a.version)) throw new SfError('SF_E_USAGE', `--version "${a.version}" is not semver x.y.z[-pre]`, { hint: 'e.g. --version 1.0.0' });
    const target = await hubTargetFor(a.hub, true);
    const root = resolve(a.path ?? '.');
    const { validateSkitDir } = await import('../../../core/skit/validate.js');
    const result = await validateSkitDir(root);
    if (!a.json) printDiagnostics(result.diagnostics.filter((d) => d.severity !== 'info'), 'stderr');
    if (!result.ok || !result.layout) {
      throw new SfError('SF_E_VALIDATION', `${root} is not a valid SKIT; nothing was published`, {
        // with --json nothing is printed above: the findings are in the error's data
        hint: a.json ? 'fix the errors in error.data.diagnostics (`sf skit validate` lists them) and publish again' : 'fix the errors above (`sf skit validate`) and publish again',
        data: { diagnostics: result.diagnostics },
      });
    }
    const secrets = result.diagnostics.filter((d) => d.code === 'SKIT_LIKELY_SECRET').map((d) => d.file);
    if (secrets.length > 0 && !a.allowSecrets) {
      throw new SfError('SF_E_VALIDATION', `refusing to publish ${secrets.join(', ')}: ${secrets.length === 1 ? 'it looks' : 'they look'} like a secret, and a release cannot be taken back`, {
        hint: 'remove the files or move them out of the SKIT directory; pass --allow-secrets if they are meant to be published',
        data: { files: secrets },
      });
    }
    const layout = result.layout;
    const id = layout.provisional ? a.id : layout.id;
    if (!id) throw new SfError('SF_E_USAGE', 'a single-skill directory has no owner/name', { hint: 'pass --id owner/name, or add a README.md with SKIT frontmatter' });
    if (!layout.provisional && a.id && a.id !== layout.id) {
      throw new SfError('SF_E_USAGE', `--id ${a.id} differs from the id ${layout.id} in README.md`, { hint: 'drop --id, or change README.md' });
    }
    const { hashSkit } = await import('../../../core/skit/hash.js');
    const { packTree } = await import('../../../core/archive/index.js');
    const { HubClient, parseSkitRef, publishedShape } = await import('../../../core/hub-client/index.js');
    if (!parseSkitRef(id) || id.includes('@')) throw new SfError('SF_E_USAGE', `"${id}" is not owner/name`, {
      hint: `owner and name are 1-64 lowercase letters, digits and inner hyphens, e.g. acme/review-kit; fix ${layout.provisional ? '--id' : 'the id in README.md'}`,
    });
    const hashes = await hashSkit(root, { ...layout, id });
    const archive = await packTree(root, layout.files);
    const query = a.visibility ? `?visibility=${a.visibility}` : '';
    const client = new HubClient(target);
    const path = `/api/v1/skits/${id}/releases/${encodeURIComponent(a.version)}${query}`;
    const res = await client
      .request('PUT', path, {
        body: new Uint8Array(archive),
        headers: { 'content-type': 'application/gzip', 'x-forge-bundle-hash': hashes.bundle },
      })
      .catch((e: unknown) => {
        // the hub validates with its own quotas: show its findings like `sf skit validate` would
        const diagnostics = (e as { data?: { diagnostics?: unknown } }).data?.diagnostics;
        if (!a.json && Array.isArray(diagnostics)) printDiagnostics(diagnostics as Diagnostic[], 'stderr');
        throw e;
      });
    const body = await client.readJson<PublishedRelease>(res, 'PUT', path, publishedShape);
    refuseRecordedMismatch(id, a.version, body, hashes);
    // the hub's views use null for "none", which docs/cli-json.md promises is left out
    if (a.json) return printJson(withoutNulls(body));
    out(`published ${sanitize(id)}@${sanitize(a.version)} (${sanitize(body.skit.visibility)}) to ${sanitize(target.url)}`);
    // printRows sanitizes every cell
    printRows([
      ['bundle', body.release.bundleHash],
      ...body.release.skills.map((s) => [s.id, s.hash]),
      ['release', body.release.url],
      ['index', body.release.wellKnownIndex],
    ], '  ');
  },
});

/**
 * A release cannot be taken back, so the hub recording other content than this machine packed
 * (a proxy that rewrote the body, a hub bug) must fail the command, not scroll past as a warning:
 * SF_E_HASH_MISMATCH naming both hashes. Hub text is sanitized; the error printer sanitizes again.
 */
function refuseRecordedMismatch(id: string, version: string, body: PublishedRelease, hashes: SkitHashes): void {
  const release = sanitize(`${id}@${version}`);
  const recorded = new Map(body.release.skills.map((s) => [s.id, s.hash]));
  const computed = new Map(hashes.skills.map((s) => [s.id, s.hash]));
  const skills = [...new Set([...computed.keys(), ...recorded.keys()])]
    .filter((skillId) => recorded.get(skillId) !== computed.get(skillId))
    .map((skillId) => ({ id: skillId, recorded: recorded.get(skillId) ?? null, computed: computed.get(skillId) ?? null }));
  const bundleDiffers = body.release.bundleHash !== hashes.bundle;
  if (!bundleDiffers && skills.length === 0) return;
  const what = bundleDiffers
    ? `bundle ${sanitize(body.release.bundleHash)}, but this machine computed ${hashes.bundle}`
    : skills.map((s) => `${sanitize(s.id)} as ${s.recorded === null ? 'missing' : sanitize(s.recorded)}, but this machine computed ${s.computed ?? 'no such skill'}`).join('; ');
  throw new SfError('SF_E_HASH_MISMATCH', `the hub published ${release} with ${what}`, {
    hint: `the release is on the hub and cannot be taken back: compare \`sf skit hash\` of this directory with \`sf skit pull ${release}\`, then deprecate it (PATCH /api/v1/skits/${sanitize(id)}/releases/${sanitize(version)}, docs/hub-registry.md) and publish a new version`,
    data: { release: body.release, recorded: body.release.bundleHash, computed: hashes.bundle, skills },
  });
}
