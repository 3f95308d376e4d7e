import type { Diagnostic } from '../errors/diagnostic.js';
import { diagnostic } from './rules.js';
import { checkRelativePath, findCollisions, PATH_PROBLEM_TEXT } from './safe-path.js';
import type { LayoutFile } from './file-index.js';
import type { TreeOddity } from './tree.js';

/**
 * Rules on the file tree itself: every path is a safe relative path, no two paths collide on a
 * case-insensitive or normalizing filesystem, and there are only regular files and directories.
 */
export function checkTree(files: readonly LayoutFile[], oddities: readonly TreeOddity[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of files) {
    const problem = checkRelativePath(f.path);
    if (problem) out.push(diagnostic('SKIT_PATH_UNSAFE', `unsafe file path: ${PATH_PROBLEM_TEXT[problem]}`, { file: f.path }));
  }
  for (const c of findCollisions(files.map((f) => f.path))) {
    const how = c.kind === 'duplicate' ? 'is listed twice' : c.kind === 'case' ? 'differ only in letter case' : 'differ only in Unicode normalization';
    const subject = c.kind === 'duplicate' ? `"${c.first}"` : `"${c.first}" and "${c.second}"`;
    out.push(diagnostic('SKIT_PATH_COLLISION', `${subject} ${how}`, { file: c.second }));
  }
  for (const o of oddities) {
    out.push(
      o.kind === 'symlink'
        ? diagnostic('SKIT_TREE_SYMLINK', 'symbolic links are not allowed in a SKIT', { file: o.path })
        : diagnostic('SKIT_TREE_SPECIAL_FILE', 'only regular files and directories are allowed in a SKIT', { file: o.path }),
    );
  }
  return out;
}
