import { SfError } from '../errors/index.js';
import { recordScopeKey, type InstallationRecord } from '../library/types.js';
import { didYouMean } from '../text/suggest.js';
import { projectRootGone } from './context.js';

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
  const elsewhere = installations.filter((i) => i.skitId === idOrAlias || i.aliases.includes(idOrAlias)).map((i) => recordScopeKey(i));
  const here = installations.filter((i) => recordScopeKey(i) === scopeKey).flatMap((i) => [i.skitId, ...i.aliases]);
  throw new SfError('SF_E_NOT_INSTALLED', `${idOrAlias} is not installed ${describeScope(scopeKey)}${elsewhere.length > 0 ? '' : didYouMean(idOrAlias, here)}`, {
    hint: elsewhere.length > 0 ? `it is installed ${elsewhere.map((key) => `${describeScope(key)} (${reachScope(key)})`).join(', ')}` : 'see `sf skit list` for what is installed',
  });
}

/**
 * How a command reaches the installations of a scope from anywhere: `--scope user`, or the
 * project's directory to run it from (`sf skit remove` also takes `--project <root>`).
 */
export function reachScope(scopeKey: string): string {
  if (scopeKey === 'user') return 'add --scope user';
  const root = scopeKey.slice('project:'.length);
  // read only on this error path: a project that is gone cannot be run from
  if (projectRootGone(root)) return `that project is gone: \`sf skit remove\` with --project ${shellArg(root)} forgets it`;
  return `run it from ${root}; \`sf skit remove\` takes --project ${shellArg(root)} from anywhere`;
}

/** The flags of `sf skit remove` that select the installation of `scopeKey`, wherever it runs. */
export function removeScopeArgs(scopeKey: string): string {
  return scopeKey === 'user' ? '--scope user' : `--project ${shellArg(scopeKey.slice('project:'.length))}`;
}

/** A path or value as one shell word, quoted only when it needs to be. */
export function shellArg(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
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
