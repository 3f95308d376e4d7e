import { createHash } from 'node:crypto';

/**
 * Provisional SKIT identities for sources that are not Forge releases: `provisional/<fingerprint>`.
 * The sources resolver supplies the real fingerprint (a hash of the canonical source: URL without
 * credentials, ref, subpath) through `ValidateOptions.provisionalId`. Without one, validation of a
 * local single-skill directory falls back to `localFingerprint`.
 */

export const PROVISIONAL_OWNER = 'provisional';

/** `provisional/<fingerprint>` */
export function provisionalSkitId(fingerprint: string): string {
  return `${PROVISIONAL_OWNER}/${fingerprint}`;
}

/** True for ids in the reserved provisional namespace. */
export function isProvisionalId(id: string): boolean {
  return id.startsWith(`${PROVISIONAL_OWNER}/`);
}

/**
 * Fallback fingerprint of a local single-skill directory: the first 24 hex digits (96 bits) of
 * sha256("sf-provisional-local\0" + skill name + "\0" + sha256 hex of the SKILL.md bytes).
 * It names the skill and its instructions, never a local path, so it is safe to share.
 */
export function localFingerprint(skillName: string, skillMd: Uint8Array | string): string {
  const content = createHash('sha256').update(skillMd).digest('hex');
  return createHash('sha256').update(`sf-provisional-local\0${skillName}\0${content}`).digest('hex').slice(0, 24);
}
