import { statSync } from 'node:fs';
import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SfError } from '../../../core/errors/index.js';
import { err, out, printDiagnostics, printJson } from '../../output/print.js';
import { bold, dim, sanitize } from '../../output/style.js';
import { invalidSkit } from './invalid-skit.js';

export const packCommand = command({
  name: 'pack',
  description: 'Pack the SKIT in [path] into a deterministic .tgz release archive (same tree, same bytes); refuses an invalid SKIT',
  args: {
    path: positional({ type: optional(string), displayName: 'path', description: 'SKIT or single-skill directory (default: the current directory)' }),
    output: option({ long: 'output', short: 'o', type: string, description: 'archive to write, e.g. out.tgz (replaced atomically)' }),
    json: flag({ long: 'json', description: 'machine output: { ok, id, archive, size, entries, sha256 }' }),
  },
  handler: async ({ path, output, json }) => {
    const root = resolve(path ?? '.');
    const archive = resolve(output);
    if (statSync(archive, { throwIfNoEntry: false })?.isDirectory()) {
      throw new SfError('SF_E_USAGE', `-o ${output} is a directory`, { location: { file: archive }, hint: `name the archive file, e.g. -o ${join(output, 'skit.tgz')}` });
    }
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
    // an earlier archive written inside the SKIT (`sf skit pack -o out.tgz` from its root) is not content
    const inside = relative(root, archive);
    const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
    const outputRel = outside ? undefined : inside.split(sep).join('/');
    const files = tree.files.filter((f) => f.path !== outputRel);
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
