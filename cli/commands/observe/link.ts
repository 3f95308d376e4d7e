import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { SfError, hasErrno } from '../../../core/errors/index.js';
import type { RepositoryLink } from '../../../core/observer/config.js';
import { out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { loadObserveState, restartNote } from './shared.js';

const REPO = /^[^\s/]+\/[^\s]+$/;

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(resolve(path));
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR')) throw new SfError('SF_E_NOT_FOUND', `${path} does not exist`, { hint: 'link an existing repository or worktree directory' });
    throw e;
  }
}

/**
 * `sf observe link <path> --repo owner/name`: sessions working under `path` belong to that
 * repository (a hint the hub authorizes server-side; it never grants access). Replaces an
 * earlier link of the same path.
 */
export const linkCommand = command({
  name: 'link',
  description: 'Map a local repository or worktree path to a repository name (owner/name) for observations',
  args: {
    path: positional({ type: string, displayName: 'path', description: 'repository or worktree directory' }),
    repo: option({ long: 'repo', type: string, description: 'repository name, owner/name' }),
    json: flag({ long: 'json', description: 'print the links as JSON' }),
  },
  handler: async ({ path, repo, json }) => {
    if (!REPO.test(repo)) throw new SfError('SF_E_USAGE', `"${repo}" is not owner/name`, { hint: 'e.g. --repo acme/webapp' });
    const abs = await canonical(path);
    const [{ updateObserveConfig }, { probeObserver }] = await Promise.all([import('../../../core/observer/config.js'), import('./observer-state.js')]);
    const state = await loadObserveState();
    const config = await updateObserveConfig(state.paths.config, (o) => {
      const links = ((o.links as RepositoryLink[] | undefined) ?? []).filter((l) => l.path !== abs);
      return { ...o, links: [...links, { repository: repo, path: abs }] };
    });
    if (json) return printJson({ links: config.links });
    out(`linked ${sanitize(abs)} -> ${sanitize(repo)}`);
    restartNote((await probeObserver(state)).running);
  },
});

/** `sf observe unlink <path>` or `sf observe unlink --repo owner/name`: removes links. */
export const unlinkCommand = command({
  name: 'unlink',
  description: 'Remove repository links by path or by repository name',
  args: {
    path: positional({ type: optional(string), displayName: 'path', description: 'linked directory to unlink (or use --repo)' }),
    repo: option({ long: 'repo', type: optional(string), description: 'remove every link to this repository' }),
    json: flag({ long: 'json', description: 'print the remaining links as JSON' }),
  },
  handler: async ({ path, repo, json }) => {
    if (!path && !repo) throw new SfError('SF_E_USAGE', 'name a path or --repo', { hint: 'sf observe unlink ./my-repo, or sf observe unlink --repo acme/webapp' });
    const abs = path ? await realpath(resolve(path)).catch(() => resolve(path)) : undefined;
    const [{ updateObserveConfig }, { probeObserver }] = await Promise.all([import('../../../core/observer/config.js'), import('./observer-state.js')]);
    const state = await loadObserveState();
    // counted under the config lock: a `link` landing meanwhile changes what was read before it
    let removed = 0;
    const config = await updateObserveConfig(state.paths.config, (o) => {
      const links = (o.links as RepositoryLink[] | undefined) ?? [];
      const kept = links.filter((l) => !(abs && l.path === abs) && !(repo && l.repository === repo));
      removed = links.length - kept.length;
      return { ...o, links: kept };
    });
    if (removed === 0) {
      const what = [abs && `of ${abs}`, repo && `to ${repo}`].filter(Boolean).join(' or ');
      throw new SfError('SF_E_NOT_FOUND', `there is no repository link ${what}`, {
        hint: '`sf observe status` lists the links; unlink one by the path or the --repo it shows',
        data: { ...(abs ? { path: abs } : {}), ...(repo ? { repo } : {}) },
      });
    }
    if (json) return printJson({ removed, links: config.links });
    out(`removed ${removed} link(s)`);
    restartNote((await probeObserver(state)).running);
  },
});
