import { isSfError, type Diagnostic } from '../errors/index.js';
import type { InstallationRecord } from '../library/types.js';
import { sourceOfRelease } from '../sources/origin.js';
import { HubClient } from './client.js';
import type { HubTarget } from './credentials.js';
import { fetchRelease } from './release.js';

const SKIT_URL = /^(https?:\/\/.+)\/s\/([^/]+\/[^/]+)$/;

/** The hub and SKIT id an installation came from, when its source is a Forge hub. */
export function hubSourceOf(inst: Pick<InstallationRecord, 'source'>): { hub: string; id: string } | undefined {
  if (inst.source.kind !== 'hub') return undefined;
  const m = SKIT_URL.exec(inst.source.canonical);
  return m ? { hub: m[1], id: m[2] } : undefined;
}

/**
 * Checks an installation from a Forge hub against the hub's record of the same release: the
 * bundle hash and every contained skill's content hash must be the ones the hub computed when the
 * release was published. Also reports quarantine and deprecation. A hub that cannot be reached is
 * an info finding, so doctor works offline; one that cannot be asked (a refused credential) is a
 * warning that says why, not a missing release.
 */
export async function verifyAgainstHub(inst: InstallationRecord, hubs: readonly HubTarget[], fetchImpl?: typeof fetch): Promise<Diagnostic[]> {
  const source = hubSourceOf(inst);
  const version = inst.release.version;
  if (!source || !version) return [];
  const target = hubs.find((h) => h.url === source.hub) ?? { url: source.hub };
  let release;
  try {
    release = await fetchRelease(new HubClient(target, { fetch: fetchImpl, timeoutMs: 15_000 }), source.id, version);
  } catch (e) {
    if (!isSfError(e)) throw e;
    if (e.code === 'SF_E_FETCH') {
      return [{ code: 'SF_HUB_UNREACHABLE', severity: 'info', message: `could not check ${inst.skitId}@${version} against ${source.hub}: ${e.message}`, hint: 'run doctor again when the hub is reachable' }];
    }
    // anything but the hub's own answer about the release (a refused or malformed credential, a
    // credential sf will not send over plain http) says nothing about what the hub serves
    if (e.code !== 'SF_E_NOT_FOUND' && e.code !== 'SF_E_QUARANTINED') {
      return [{ code: 'SF_HUB_UNVERIFIED', severity: 'warning', message: `could not check ${inst.skitId}@${version} against ${source.hub}: ${e.message}`, hint: e.hint ?? `log in again: sf login --hub ${source.hub}` }];
    }
    return [{ code: 'SF_HUB_RELEASE_MISSING', severity: 'error', message: `${source.hub} does not serve ${source.id}@${version}: ${e.message}`, hint: e.hint ?? 'the release may have been made private or removed; check with its owner' }];
  }
  const out: Diagnostic[] = [];
  // owner/name@version reaches the default hub only; another hub's release is named by its URL
  const exact = hubs[0]?.url === source.hub ? `${source.id}@${version}` : sourceOfRelease(inst.source, inst.release);
  if (release.bundleHash !== inst.bundleHash) {
    out.push({ code: 'SF_HUB_BUNDLE_MISMATCH', severity: 'error', message: `installed bundle ${inst.bundleHash} is not the hub's ${release.bundleHash} for ${source.id}@${version}`, hint: `reinstall the exact release: sf add skit ${exact} --force` });
  }
  for (const skill of inst.skills) {
    const remote = release.skills.find((s) => s.name === skill.name);
    if (!remote) out.push({ code: 'SF_HUB_SKILL_MISMATCH', severity: 'error', message: `${skill.id} is not part of ${source.id}@${version} on the hub` });
    else if (remote.hash !== skill.hash) out.push({ code: 'SF_HUB_SKILL_MISMATCH', severity: 'error', message: `${skill.id} hashes to ${skill.hash} here but ${remote.hash} on the hub`, hint: `reinstall: sf add skit ${exact} --force` });
  }
  const extra = release.skills.filter((s) => !inst.skills.some((k) => k.name === s.name));
  for (const s of extra) out.push({ code: 'SF_HUB_SKILL_MISMATCH', severity: 'error', message: `the hub's ${source.id}@${version} contains ${s.id}, which is not installed` });
  if (release.quarantined) {
    out.push({ code: 'SF_HUB_QUARANTINED', severity: 'error', message: `${source.id}@${version} is quarantined on the hub: ${release.quarantined.reason}`, hint: release.quarantined.replacement ? `move to ${release.quarantined.replacement}` : 'remove it: sf skit remove ' + source.id });
  }
  if (release.deprecated) {
    out.push({ code: 'SF_HUB_DEPRECATED', severity: 'warning', message: `${source.id}@${version} is deprecated: ${release.deprecated.message}`, ...(release.deprecated.replacement ? { hint: `move to ${release.deprecated.replacement}` } : {}) });
  }
  if (out.length === 0) {
    out.push({ code: 'SF_HUB_VERIFIED', severity: 'info', message: `bundle and ${inst.skills.length} skill hash${inst.skills.length === 1 ? '' : 'es'} match ${source.hub} for ${source.id}@${version}` });
  }
  return out;
}
