import type { Diagnostic } from '../errors/diagnostic.js';
import { diagnostic } from './rules.js';
import { checkRelativePath, findCollisions, PATH_PROBLEM_TEXT } from './safe-path.js';
import type { LayoutFile } from './file-index.js';
import type { TreeOddity } from './tree.js';

/** What an `encoding` oddity of the walk means; its path shows U+FFFD where the bytes were. */
const NOT_UTF8 = 'a name in the path is not valid UTF-8 (shown with \ufffd where its bytes are)';

/** Names that usually hold credentials or private keys (`.env.example` and friends are templates). */
const SECRET_NAME = /^(\.env(\.(?!(example|sample|template|dist)$)[^/]+)?|id_(rsa|dsa|ecdsa|ed25519)|\.npmrc|\.pypirc|\.netrc|\.git-credentials|\.htpasswd|.+\.(pem|key|p12|pfx|jks|keystore))$/i;

/** True for a SKIT-relative path whose file name usually holds a secret (see SECRET_NAME, plus `.aws/credentials`). */
export function looksLikeSecret(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return SECRET_NAME.test(name) || /(^|\/)\.aws\/credentials$/.test(path);
}

/**
 * Rules on the file tree itself: every path is a safe relative path, no two paths collide on a
 * case-insensitive or normalizing filesystem, there are only regular files and directories, and
 * files that look like secrets are pointed out (a warning: they would be published and installed).
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
  for (const f of files) {
    if (looksLikeSecret(f.path)) out.push(diagnostic('SKIT_LIKELY_SECRET', `${f.path} looks like a secret (credentials or a private key)`, { file: f.path }));
  }
  for (const o of oddities) {
    out.push(
      o.kind === 'symlink'
        ? diagnostic('SKIT_TREE_SYMLINK', 'symbolic links are not allowed in a SKIT', { file: o.path })
        : o.kind === 'encoding'
          ? diagnostic('SKIT_PATH_UNSAFE', `unsafe file path: ${NOT_UTF8}`, { file: o.path }, { hint: 'rename it with a UTF-8 name (it was written in another encoding, such as Latin-1)' })
          : diagnostic('SKIT_TREE_SPECIAL_FILE', 'only regular files and directories are allowed in a SKIT', { file: o.path }),
    );
  }
  return out;
}
