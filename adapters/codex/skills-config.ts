import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { SfError, type Diagnostic } from '../../core/errors/index.js';
import { MARKER, appendBlocks, findManagedBlocks, parseTomlConfig, renderBlock, rewriteBlocks, separatorBefore, type TomlBlock } from '../config/toml-blocks.js';
import type { ManagedEntry } from '../config/managed.js';

/** One Forge skill as Codex must see it: disabled ones get a path-selector entry with enabled = false. */
export interface CodexSkillState {
  skillId: string;
  name: string;
  /** absolute path of the projected SKILL.md (Codex canonicalizes both sides, symlinks included) */
  skillMdPath: string;
  enabled: boolean;
}

export const HEADER = '[[skills.config]]';

export interface CodexPlan {
  /** the new text, or the same text when nothing changes */
  text: string;
  managed: ManagedEntry[];
  diagnostics: Diagnostic[];
  /** what Forge put before each of its blocks, by skill id (recorded ones kept, appended ones new; see rewriteBlocks) */
  separators: Record<string, string>;
}

type Entry = Record<string, unknown>;

/** `[[skills.config]]` entries as parsed; anything else under `skills.config` is refused. */
function skillsConfig(doc: Record<string, unknown>, file: string): Entry[] {
  const skills = doc.skills as Record<string, unknown> | undefined;
  const list = skills?.config;
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.some((e) => typeof e !== 'object' || e === null || Array.isArray(e))) {
    throw new SfError('SF_E_CONFIG', `${file}: "skills.config" is not an array of tables`, {
      location: { file, pointer: 'skills.config' },
      hint: 'Write each entry as a [[skills.config]] table; the file was not changed.',
    });
  }
  return list as Entry[];
}

/** The entries that are not Forge's: every parsed entry minus one occurrence of each managed block's values. */
function userEntries(all: Entry[], blocks: TomlBlock[]): Entry[] {
  const rest = [...all];
  for (const b of blocks) {
    const i = rest.findIndex((e) => isDeepStrictEqual(e, b.values));
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

const entryFor = (s: CodexSkillState): Entry => ({ path: s.skillMdPath, enabled: false });

/** Forge writes `path` and `enabled` only: a marked block with any other key was edited by someone, and is theirs now. */
const FORGE_KEYS = new Set(['path', 'enabled']);
const isEdited = (b: TomlBlock): boolean => Object.keys(b.values).some((k) => !FORGE_KEYS.has(k));

/** The marked `[[skills.config]]` blocks Forge still owns in `text` (edited ones excluded: see isEdited). */
function ownedBlocks(text: string): TomlBlock[] {
  return findManagedBlocks(text).filter((b) => b.header === HEADER && !isEdited(b));
}

/** Whether `text` holds nothing but Forge's blocks (of any installation) and blank lines. */
export function onlyForgeBlocks(text: string): boolean {
  const blocks = ownedBlocks(text);
  return blocks.length > 0 && rewriteBlocks(text, blocks, () => undefined).trim() === '';
}

/** `owner/name:skill` -> `owner/name`. */
export const skitOf = (skillId: string): string => skillId.slice(0, skillId.lastIndexOf(':'));
export const skitsOf = (skillIds: Iterable<string>): Set<string> => new Set([...skillIds].map(skitOf));

/**
 * One installation's share of the config.toml every installation edits. A SKIT can be installed
 * for Codex in several places (user scope, each project), all of them in $CODEX_HOME/config.toml,
 * so a Forge block belongs to the installation of its SKIT (the marker's skill id) whose place its
 * `path` is in: one of that installation's SKILL.md paths (the request's, or recorded), or a skill
 * directory right in its skill root. The marker stays `# managed by sf: <skill id>`, as older
 * versions wrote it; the path decides the place, so their blocks keep working.
 */
export interface CodexOwner {
  skits: ReadonlySet<string>;
  paths: ReadonlySet<string>;
  /** the installation's skill root (`<root>/<skill>/SKILL.md` there is its place) */
  root?: string;
}

export function ownerOf(desired: readonly CodexSkillState[], recorded: readonly ManagedEntry[] = [], root?: string): CodexOwner {
  const recordedPaths = recorded.map((m) => m.path[3]).filter((p): p is string => typeof p === 'string');
  return {
    skits: skitsOf([...desired.map((s) => s.skillId), ...recorded.map((m) => m.skillId)]),
    paths: new Set([...desired.map((s) => s.skillMdPath), ...recordedPaths]),
    ...(root ? { root } : {}),
  };
}

/** Whether a marked block is this installation's (see CodexOwner). */
export function ownedBy(b: TomlBlock, o: CodexOwner): boolean {
  const path = b.values.path;
  if (!o.skits.has(skitOf(b.id)) || typeof path !== 'string') return false;
  return o.paths.has(path) || (o.root !== undefined && dirname(dirname(path)) === o.root);
}

/**
 * Real paths (symlinks resolved) of paths that exist, by the path as written: Codex canonicalizes
 * a `[[skills.config]]` path and the skill's own path before comparing them, so an entry naming
 * the store path of a SKILL.md, or a path through a symlinked directory, names the same skill.
 */
export type ResolvedPaths = ReadonlyMap<string, string>;

/** Whether two SKILL.md paths name the same file as Codex sees it (pure: `resolved` holds the real paths). */
export function sameSkillPath(a: string, b: string, resolved: ResolvedPaths = new Map()): boolean {
  return a === b || (resolved.get(a) ?? a) === (resolved.get(b) ?? b);
}

/** Where a user entry names the skill's SKILL.md by another path (the same file): that path, for the message. */
const otherPath = (e: Entry, s: CodexSkillState): string =>
  typeof e.path === 'string' && e.path !== s.skillMdPath && e.name !== s.name ? ` (path = ${JSON.stringify(e.path)}, the same SKILL.md as ${JSON.stringify(s.skillMdPath)})` : '';

/**
 * The paths the caller should resolve for planCodexConfig: the desired skills' SKILL.md paths and
 * every string `path` of a `[[skills.config]]` entry in `text` (none of the file's when it does
 * not parse; planning reports that).
 */
export function pathsToResolve(text: string, file: string, desired: readonly CodexSkillState[]): string[] {
  let entries: Entry[] = [];
  try {
    entries = skillsConfig(parseTomlConfig(text, file), file);
  } catch (e) {
    if (!(e instanceof SfError)) throw e;
  }
  const named = entries.map((e) => e.path).filter((p): p is string => typeof p === 'string');
  return [...new Set([...desired.map((s) => s.skillMdPath), ...named])];
}

/**
 * Plans Forge's `[[skills.config]]` blocks in Codex's config.toml (pure): a marked block with
 * `path = <SKILL.md>` and `enabled = false` for each disabled skill, none for enabled ones. User
 * entries matching a skill by path (the same real path, see ResolvedPaths) or name are never
 * edited: one that enables a skill Forge must disable is a conflict (SF_E_CONFLICT), one that
 * disables an enabled skill is a warning.
 */
export function planCodexConfig(text: string, file: string, desired: CodexSkillState[], eol: string, owner: CodexOwner = ownerOf(desired), recorded: Readonly<Record<string, string>> = {}, resolved: ResolvedPaths = new Map()): CodexPlan {
  const doc = parseTomlConfig(text, file);
  // the file is shared by every installation (other SKITs, and this SKIT in other places): only
  // this installation's blocks are this plan's business
  const owned = ownedBlocks(text);
  const blocks = owned.filter((b) => ownedBy(b, owner));
  const users = userEntries(skillsConfig(doc, file), owned);
  const diagnostics: Diagnostic[] = [];
  const fatal: Diagnostic[] = [];
  for (const b of findManagedBlocks(text).filter((x) => x.header === HEADER && isEdited(x) && ownedBy(x, owner))) {
    diagnostics.push({ code: 'SF_ADAPTER_CONFIG_DRIFT', severity: 'warning', file,
      message: `the Forge [[skills.config]] block for ${b.id} in ${file} has keys Forge did not write (${Object.keys(b.values).filter((k) => !FORGE_KEYS.has(k)).join(', ')}); Forge left it in place and no longer manages it`,
      hint: `Delete that block from ${file} yourself if you no longer want it (keys after a [[skills.config]] line belong to that entry).` });
  }
  for (const s of desired) {
    const mine = users.filter((e) => (typeof e.path === 'string' && sameSkillPath(e.path, s.skillMdPath, resolved)) || e.name === s.name);
    const last = mine[mine.length - 1];
    if (!last) continue;
    if (!s.enabled && last.enabled !== false) {
      fatal.push({ code: 'SF_ADAPTER_OVERRIDE_CONFLICT', severity: 'error', file, errorCode: 'SF_E_CONFLICT',
        message: `${s.skillId} must be disabled, but your own [[skills.config]] entry for "${s.name}"${otherPath(last, s)} in ${file} sets enabled = ${String(last.enabled)}`,
        hint: `Remove or change that [[skills.config]] entry yourself (Forge does not edit your entries), then run the command again.` });
    } else if (s.enabled && last.enabled === false) {
      diagnostics.push({ code: 'SF_ADAPTER_USER_OVERRIDE', severity: 'warning', file, errorCode: 'SF_E_CONFLICT',
        message: `${s.skillId} is enabled in Forge, but your own [[skills.config]] entry${otherPath(last, s)} in ${file} keeps "${s.name}" disabled`,
        hint: 'Remove that [[skills.config]] entry if you want the skill on; Forge never edits entries it did not write.' });
    }
  }
  if (fatal.length > 0) {
    throw new SfError('SF_E_CONFLICT', fatal.map((d) => d.message).join('\n'), { location: { file }, hint: fatal[0].hint, data: { diagnostics: fatal } });
  }
  // a disabled skill the user's own entry already turns off exactly as Forge would (a block whose
  // marker was removed, say) needs no second entry; that entry stays the user's
  const satisfiedByUser = (s: CodexSkillState) => users.some((e) => isDeepStrictEqual(e, entryFor(s)));
  const needsBlock = (s: CodexSkillState) => !s.enabled && (blocks.some((b) => b.id === s.skillId) || !satisfiedByUser(s));
  const wanted = new Map(desired.filter(needsBlock).map((s) => [s.skillId, s]));
  const render = (s: CodexSkillState) => renderBlock(s.skillId, HEADER, [['path', s.skillMdPath], ['enabled', false]], eol);
  const seen = new Set<string>();
  let removes = false;
  // a managed block for a skill that is no longer disabled goes; a duplicated one keeps its first copy
  let out = rewriteBlocks(text, blocks, (b) => {
    const s = wanted.get(b.id);
    if (!s || seen.has(b.id)) {
      removes = true;
      return undefined;
    }
    seen.add(b.id);
    return isDeepStrictEqual(b.values, entryFor(s)) ? text.split(/(?<=\n)/).slice(b.start, b.end).join('') : render(s);
  }, (b) => (Object.hasOwn(recorded, b.id) && typeof recorded[b.id] === 'string' ? recorded[b.id] : undefined));
  const present = new Set(blocks.map((b) => b.id));
  const separators: Record<string, string> = {};
  for (const s of wanted.values()) {
    if (present.has(s.skillId)) {
      if (Object.hasOwn(recorded, s.skillId)) separators[s.skillId] = recorded[s.skillId];
      continue;
    }
    separators[s.skillId] = separatorBefore(out, eol);
    out = appendBlocks(out, [render(s)], eol);
  }
  const managed = [...wanted.values()].map((s) => ({ skillId: s.skillId, path: ['skills', 'config', 'path', s.skillMdPath], value: false }));
  // what the edit does, for a refusal: appending blocks, or only taking some out
  const action = Object.keys(separators).some((id) => !present.has(id)) ? 'adding' : removes ? 'removing' : 'updating';
  verify(text, out, file, users, { ...owner, paths: new Set([...owner.paths, ...managed.map((m) => m.path[3])]) }, managed, action);
  return { text: out, managed, diagnostics, separators };
}

/** The edit must leave everything but Forge's blocks exactly as parsed before. */
function verify(before: string, after: string, file: string, users: Entry[], owner: CodexOwner, managed: ManagedEntry[], action: 'adding' | 'updating' | 'removing'): void {
  if (before === after) return;
  const a = parseTomlConfig(before, file);
  let b: Record<string, unknown>;
  try {
    b = parseTomlConfig(after, file);
  } catch (e) {
    throw new SfError('SF_E_CONFIG', `${file}: ${action} Forge's [[skills.config]] tables would make the file invalid TOML; refusing`, {
      location: { file, pointer: 'skills' },
      hint: action === 'adding'
        ? 'Forge appends [[skills.config]] tables; write "skills" as a [skills] table instead of an inline table or array, then run the command again. The file was not changed.'
        : `Check the text around the blocks marked "${MARKER}" (an unfinished line or table next to them), or delete the block yourself, then run the command again. The file was not changed.`,
      cause: e,
    });
  }
  const afterUsers = userEntries(skillsConfig(b, file), ownedBlocks(after));
  const strip = (d: Record<string, unknown>) => {
    const copy = structuredClone(d);
    const skills = copy.skills as Record<string, unknown> | undefined;
    if (skills) {
      delete skills.config;
      if (Object.keys(skills).length === 0) delete copy.skills;
    }
    return copy;
  };
  const byPath = (x: Entry, y: Entry) => String(x.path).localeCompare(String(y.path));
  const ours = ownedBlocks(after).filter((x) => ownedBy(x, owner)).map((x) => x.values).sort(byPath);
  const expectedOurs = managed.map((m): Entry => ({ path: m.path[3], enabled: false })).sort(byPath);
  // every other installation's blocks (other SKITs, this SKIT in other places) stay exactly as they were
  const othersBlocks = (text: string) => ownedBlocks(text).filter((x) => !ownedBy(x, owner));
  const others = (text: string) => othersBlocks(text).map((x) => ({ id: x.id, ...x.values }));
  // what Codex will read: the user's entries, ours and the other installations' as parsed, not as
  // found by the line scan (text that only looks like a block must not count as one)
  const parsedAsPlanned = sameEntries(skillsConfig(b, file), [...users, ...expectedOurs, ...othersBlocks(before).map((x) => x.values)]);
  if (!parsedAsPlanned || !isDeepStrictEqual(strip(a), strip(b)) || !isDeepStrictEqual(afterUsers, users) || !isDeepStrictEqual(ours, expectedOurs) || !isDeepStrictEqual(others(before), others(after))) {
    throw new SfError('SF_E_CONFIG', `${file}: editing Forge's [[skills.config]] entries would change other settings; refusing`, {
      location: { file, pointer: 'skills.config' },
      hint: 'Check the Forge-managed blocks (marked "# managed by sf") were not merged with your own keys; the file was not changed.',
    });
  }
}

/** The same entries in any order (each counted as often as it occurs). */
function sameEntries(actual: Entry[], expected: Entry[]): boolean {
  const canon = (list: Entry[]) => list.map((e) => JSON.stringify(e, Object.keys(e).sort())).sort();
  return isDeepStrictEqual(canon(actual), canon(expected));
}
