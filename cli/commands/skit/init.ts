import { command, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { SfError, hasErrno } from '../../../core/errors/index.js';
import { scaffoldSkit } from '../../../core/skit/scaffold.js';
import { isValidSkitId } from '../../../core/skit/skit-id.js';
import { out } from '../../output/print.js';

export const initCommand = command({
  name: 'init',
  description: 'Scaffold a valid two-skill SKIT in [path] (default: the current directory)',
  args: {
    path: positional({ type: optional(string), displayName: 'path', description: 'directory to create the SKIT in (default: the current directory)' }),
    id: option({ long: 'id', type: optional(string), description: 'SKIT id owner/name (default: local/<directory name>)' }),
  },
  handler: async ({ path, id }) => {
    const root = resolve(path ?? '.');
    const existing = await readdir(root).catch((e) => {
      if (hasErrno(e, 'ENOENT')) return [];
      if (hasErrno(e, 'ENOTDIR')) throw new SfError('SF_E_USAGE', `${root} is a file, not a directory`, { location: { file: root }, hint: 'give the path of a new or empty directory, e.g. `sf skit init my-skit`' });
      throw e;
    });
    if (existing.length > 0) {
      throw new SfError('SF_E_CONFLICT', `could not initialize a SKIT in ${root}: the directory is not empty`, {
        location: { file: root },
        hint: 'choose an empty or new directory, e.g. `sf skit init my-skit`',
      });
    }
    // an empty --id is a mistake, not a request for the default
    const skitId = id === undefined ? `local/${slug(basename(root))}` : id;
    if (!isValidSkitId(skitId)) {
      throw new SfError('SF_E_USAGE', `invalid SKIT id "${skitId}"`, { hint: 'use owner/name with lowercase letters, digits and inner hyphens (at most 64 characters each)' });
    }
    for (const [rel, content] of Object.entries(scaffoldSkit({ id: skitId }))) {
      const abs = join(root, ...rel.split('/'));
      await mkdir(dirname(abs), { recursive: true });
      await writeFile(abs, content, { flag: 'wx' });
    }
    out(`Created SKIT ${skitId} in ${root}`);
    out(`Next: ${await nextSteps(path, root)}`);
  },
});

/** The next commands, runnable from where init ran: they name the new directory, and pack writes beside it, never inside. */
async function nextSteps(path: string | undefined, root: string): Promise<string> {
  const { shellArg } = await import('../../../core/install/find-installation.js');
  const beside = join(dirname(root), `${basename(root)}.tgz`);
  const archive = shellArg(path !== undefined && isAbsolute(path) ? beside : relative(process.cwd(), beside));
  if (path === undefined) return `sf skit validate, sf skit hash, sf skit pack -o ${archive}`;
  const dir = shellArg(path);
  return `sf skit validate ${dir}, sf skit hash ${dir}, sf skit pack ${dir} -o ${archive}`;
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'my-skit';
