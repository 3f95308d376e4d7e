import type { Diagnostic } from '../errors/diagnostic.js';
import type { DescriptorSkill } from './descriptor.js';
import type { Locate } from './descriptor-source.js';
import { ancestors, unseenAncestors, type FileIndex, type LayoutFile } from './file-index.js';
import { diagnostic } from './rules.js';
import { checkRelativePath, collisionKey, isWithin, PATH_PROBLEM_TEXT } from './safe-path.js';

/**
 * Rules on `shared` mappings: shared files reach a skill only through them. `from` (SKIT-relative,
 * a file or a directory) must exist and lie outside every skill directory; `to` (skill-relative)
 * must be a safe path whose materialized files collide with nothing already in the skill. Pure.
 */

export interface SharedCheck {
  diagnostics: Diagnostic[];
  /** source files each skill receives through its valid mappings, by skill name */
  mapped: Map<string, LayoutFile[]>;
}

const trimSlash = (p: string) => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p);

export function checkShared(skills: readonly DescriptorSkill[], index: FileIndex, locate: Locate): SharedCheck {
  const result: SharedCheck = { diagnostics: [], mapped: new Map() };
  const out = result.diagnostics;
  const skillDirs = skills.map((s) => s.path);
  const skillDirSet = new Set(skillDirs);
  for (const s of skills) {
    const received: LayoutFile[] = [];
    result.mapped.set(s.name, received);
    if (s.shared.length === 0) continue;
    const occupied = new Occupancy(index.under(s.path).map((f) => f.path.slice(s.path.length + 1)));
    for (const m of s.shared) {
      const at = (key: 'from' | 'to') => locate(`/skills/${s.index}/shared/${m.index}/${key}`);
      const label = `skill "${s.name}" shared[${m.index}]`;
      const fromProblem = checkRelativePath(m.from);
      const toProblem = checkRelativePath(m.to);
      if (fromProblem) out.push(diagnostic('SKIT_SHARED_PATH_UNSAFE', `${label}.from "${m.from}": ${PATH_PROBLEM_TEXT[fromProblem]}`, at('from')));
      if (toProblem) out.push(diagnostic('SKIT_SHARED_PATH_UNSAFE', `${label}.to "${m.to}": ${PATH_PROBLEM_TEXT[toProblem]}`, at('to')));
      if (fromProblem || toProblem) continue;
      const from = trimSlash(m.from);
      const to = trimSlash(m.to);
      const owner = [...ancestors(from), from].find((a) => skillDirSet.has(a));
      const inner = skillDirs.find((d) => isWithin(d, from) && d !== from);
      if (owner !== undefined || inner !== undefined) {
        const why = owner !== undefined ? `lies inside the skill directory ${owner}` : `contains the skill directory ${inner}`;
        out.push(diagnostic('SKIT_SHARED_FROM_IN_SKILL', `${label}.from "${from}" ${why}`, at('from')));
        continue;
      }
      const sources = index.fileOrTree(from);
      if (sources.length === 0) {
        out.push(diagnostic('SKIT_SHARED_FROM_MISSING', `${label}.from "${from}" matches no file of the SKIT`, at('from')));
        continue;
      }
      const clash = sources.map((f) => (f.path === from ? to : `${to}/${f.path.slice(from.length + 1)}`)).map((t) => occupied.claim(t)).find((c) => c);
      if (clash) out.push(diagnostic('SKIT_SHARED_TO_COLLISION', `${label}.to "${to}": ${clash}`, at('to')));
      else received.push(...sources);
    }
  }
  return result;
}

/** The paths taken inside one skill projection, keyed the way case-insensitive filesystems see them. */
class Occupancy {
  private readonly files = new Map<string, string>();
  private readonly dirs = new Map<string, string>();
  /** directories already taken, as written (their ancestors are taken too) */
  private readonly taken = new Set<string>();

  constructor(own: readonly string[]) {
    for (const p of own) this.take(p);
  }

  /** Takes `path`, or says why it cannot be taken. */
  claim(path: string): string | undefined {
    const key = collisionKey(path);
    const file = this.files.get(key);
    if (file !== undefined) return `"${path}" would land on the existing file "${file}"`;
    const dir = this.dirs.get(key);
    if (dir !== undefined) return `"${path}" would land on the existing directory "${dir}"`;
    const blocking = ancestors(path).find((a) => this.files.has(collisionKey(a)));
    if (blocking !== undefined) return `"${path}" needs "${blocking}" to be a directory, but it is a file`;
    this.take(path);
    return undefined;
  }

  private take(path: string): void {
    this.files.set(collisionKey(path), path);
    for (const dir of unseenAncestors(path, this.taken)) {
      this.taken.add(dir);
      this.dirs.set(collisionKey(dir), dir);
    }
  }
}
