import { realpathSync, statSync } from 'node:fs';
import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SfError } from '../../../core/errors/index.js';
import { err, out, printDiagnostics, printJson } from '../../output/print.js';
import { bold, dim, sanitize } from '../../output/style.js';
import { invalidSkit } from './invalid-skit.js';

/**
 * An archive written inside the SKIT would be part of the SKIT: hash, publish and install take
 * every file, so the next release would ship the previous archive in itself. Refused, with an
 * output next to the SKIT instead (compared through links: `-o` may name the SKIT by another path).
 */
function refuseOutputInside(root: string, archive: string, output: string): void {
  if (!isInside(root, archive) && !isInside(realPath(root), realPath(archive))) return;
  const suggestion = relative(process.cwd(), join(dirname(root), `${basename(root)}.tgz`));
  throw new SfError('SF_E_USAGE', `-o ${output} is inside the SKIT ${root}: the archive would become part of the SKIT's content (hash, publish and install take every file)`, {
    location: { file: archive },
    hint: `write it outside the SKIT, e.g. -o ${suggestion}`,
  });
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** `path` with its nearest existing ancestor resolved through links (the output and its directories may not exist yet). */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPath(parent), basename(path));
  }
}

export const packCommand = command({
  name: 'pack',
  description: 'Pack the SKIT in [path] into a deterministic .tgz release archive (same tree, same bytes); refuses an invalid SKIT',
  args: {
    path: positional({ type: optional(string), displayName: 'path', description: 'SKIT or single-skill directory (default: the current directory)' }),
    output: option({ long: 'output', short: 'o', type: string, description: 'archive to write outside the SKIT, e.g. ../my-skit.tgz (replaced atomically)' }),
    json: flag({ long: 'json', description: 'machine output: { ok, id, archive, size, entries, sha256 }' }),
  },
  handler: async ({ path, output, json }) => {
    const root = resolve(path ?? '.');
    const archive = resolve(output);
    if (statSync(archive, { throwIfNoEntry: false })?.isDirectory()) {
      throw new SfError('SF_E_USAGE', `-o ${output} is a directory`, { location: { file: archive }, hint: `name the archive file, e.g. -o ${join(output, 'skit.tgz')}` });
    }
    refuseOutputInside(root, archive, output);
    const { validateSkitDir } = await import('../../../core/skit/validate.js');
    const validation = await validateSkitDir(root);
    if (!validation.ok) {
      if (!json) printDiagnostics(validation.diagnostics, 'stderr');
      throw invalidSkit(root, 'packed', validation.diagnostics);
    }
    const { walkTree } = await import('../../../core/skit/tree.js');
    const tree = await walkTree(root);
    if (tree.oddities.length > 0) {
      const odd = tree.oddities[0];
      throw new SfError('SF_E_UNSAFE_PATH', `cannot pack ${odd.path}: it is a ${odd.kind === 'symlink' ? 'symbolic link' : 'special file'}`, {
        location: { file: odd.path },
        hint: 'release archives hold regular files only; replace links with copies',
      });
    }
    const files = tree.files;
    const { packTree } = await import('../../../core/archive/pack.js');
    const bytes = await packTree(root, files);
    const { writeFileAtomic } = await import('../../../core/fs/atomic.js');
    await writeFileAtomic(archive, bytes);
    // imported here: node:crypto costs ~3 ms to load, which every `sf skit` command would pay
    const { createHash } = await import('node:crypto');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const id = validation.layout?.id;
    if (json) {
      printJson({ ok: true, id, archive, size: bytes.length, entries: files.length, sha256 });
      return;
    }
    out(`Packed ${id ? `${sanitize(id)} ` : ''}into ${sanitize(archive)}`);
    out(`${bold('size')}     ${bytes.length} bytes`);
    out(`${bold('entries')}  ${files.length} files`);
    out(`${bold('sha256')}   ${sha256}`);
    // files that look like secrets are shown, not summed up: the archive is about to be shared
    const secrets = validation.diagnostics.filter((d) => d.code === 'SKIT_LIKELY_SECRET');
    if (secrets.length > 0) printDiagnostics(secrets, 'stderr');
    const rest = validation.diagnostics.length - secrets.length;
    if (rest > 0) err(dim(`${rest} other validation finding(s) without errors; see \`sf skit validate\``));
  },
});
