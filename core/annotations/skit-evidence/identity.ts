import type { InstallMatch } from '../enums.js';

/** `owner/name` or `provisional/<fingerprint>` (ARCHITECTURE.md, identity). */
export const SKIT_ID = /^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*$/i;
/** `owner/name:skill` */
export const SKILL_ID = /^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*:[a-z0-9][a-z0-9._-]*$/i;
/** `sha256:<64 lowercase hex>` */
export const HASH = /^sha256:[0-9a-f]{64}$/;

/** How an observed (skill, content hash) relates to the installed skills. */
export function expectedInstallMatch(installed: readonly { skill?: unknown; contentHash?: unknown }[], skill: string, contentHash: string | undefined): InstallMatch {
  const same = installed.filter((s) => s.skill === skill);
  if (same.length === 0) return 'not-installed';
  if (contentHash === undefined) return 'unknown';
  return same.some((s) => s.contentHash === contentHash) ? 'yes' : 'hash-differs';
}
