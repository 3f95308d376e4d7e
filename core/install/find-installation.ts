import { SfError } from '../errors/index.js';
import { recordScopeKey, type InstallationRecord } from '../library/types.js';
import { didYouMean } from '../text/suggest.js';

/** The installation answering to `idOrAlias` in one scope, or undefined. Pure. */
export function findInScope(installations: readonly InstallationRecord[], scopeKey: string, idOrAlias: string): InstallationRecord | undefined {
  // the scope key is built only for the few records that answer to the name (this runs per plan)
  const here = (i: InstallationRecord) => recordScopeKey(i) === scopeKey;
  return installations.find((i) => i.skitId === idOrAlias && here(i)) ?? installations.find((i) => i.aliases.includes(idOrAlias) && here(i));
}

/** Like findInScope, but SF_E_NOT_INSTALLED (naming the scopes where it is installed) when absent. */
export function requireInScope(installations: readonly InstallationRecord[], scopeKey: string, idOrAlias: string): InstallationRecord {
  const found = findInScope(installations, scopeKey, idOrAlias);
  if (found) return found;
  const elsewhere = installations.filter((i) => i.skitId === idOrAlias || i.aliases.includes(idOrAlias)).map((i) => describeScope(recordScopeKey(i)));
  const here = installations.filter((i) => recordScopeKey(i) === scopeKey).flatMap((i) => [i.skitId, ...i.aliases]);
  throw new SfError('SF_E_NOT_INSTALLED', `${idOrAlias} is not installed ${describeScope(scopeKey)}${elsewhere.length > 0 ? '' : didYouMean(idOrAlias, here)}`, {
    hint: elsewhere.length > 0 ? `it is installed ${elsewhere.join(', ')}; use --scope or run from that project` : 'see `sf skit list` for what is installed',
  });
}

/** `for the user` / `in project /path`. */
export function describeScope(scopeKey: string): string {
  return scopeKey === 'user' ? 'for the user (global)' : `in project ${scopeKey.slice('project:'.length)}`;
}

/** Splits `owner/name:skill` into the SKIT id and the skill name. */
export function parseSkillRef(ref: string): { skitId: string; skill: string } {
  const cut = ref.lastIndexOf(':');
  // one colon, and a skill name (no path, at most 128 characters: skill names are at most 64)
  if (cut <= 0 || cut === ref.length - 1 || ref.indexOf(':') !== cut || ref.length - cut - 1 > 128 || ref.slice(cut + 1).includes('/')) {
    throw new SfError('SF_E_USAGE', `"${ref}" is not a skill id`, { hint: 'use <owner/name>:<skill>, e.g. acme/code-quality:review (see `sf skit list`)' });
  }
  return { skitId: ref.slice(0, cut), skill: ref.slice(cut + 1) };
}
