import type { Diagnostic } from '../errors/diagnostic.js';
import { ancestors } from './file-index.js';
import { diagnostic } from './rules.js';
import { isWithin } from './safe-path.js';

/**
 * Relative Markdown links in a SKILL.md body must stay inside the skill's own directory: once
 * installed, a skill sees only its directory and its shared mappings, so `../sibling/x.md` breaks
 * and reaches into another skill. Inline links, images and reference definitions are checked;
 * fenced code blocks, URLs with a scheme, fragments and absolute paths are skipped. Pure.
 */

const INLINE = /!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g;
const REFERENCE = /^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)/;
const FENCE = /^\s{0,3}(```|~~~)/;

export function checkSkillLinks(body: string, bodyLine: number, skillPath: string, file: string, skillPaths: ReadonlySet<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  let fenced = false;
  body.split('\n').forEach((line, i) => {
    if (FENCE.test(line)) fenced = !fenced;
    if (fenced) return;
    const targets: [string, number][] = [];
    for (const m of line.matchAll(INLINE)) targets.push([m[1], (m.index ?? 0) + 1]);
    const ref = REFERENCE.exec(line);
    if (ref) targets.push([ref[1], line.indexOf(ref[1]) + 1]);
    for (const [target, column] of targets) {
      const problem = escapes(target, skillPath, skillPaths);
      if (problem) out.push(diagnostic('SKIT_SKILL_TRAVERSAL', `link "${target}" ${problem}`, { file, line: bodyLine + i, column }));
    }
  });
  return out;
}

/** Why a link target leaves the skill directory, or null when it stays inside (or is not a path). */
function escapes(target: string, skillPath: string, skillPaths: ReadonlySet<string>): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/') || target.startsWith('\\')) return null;
  let path = target.replace(/[?#].*$/, '');
  try {
    path = decodeURI(path);
  } catch (e) {
    if (!(e instanceof URIError)) throw e;
  }
  const stack = skillPath === '' ? [] : skillPath.split('/');
  for (const seg of path.split(/[/\\]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..') stack.push(seg);
    else if (stack.length === 0) return 'points outside the SKIT';
    else stack.pop();
  }
  const resolved = stack.join('/');
  if (isWithin(resolved, skillPath)) return null;
  const owner = [...ancestors(resolved), resolved].find((a) => skillPaths.has(a));
  return owner ? `reaches into the sibling skill at ${owner}` : `points outside the skill directory (to ${resolved || 'the SKIT root'})`;
}
