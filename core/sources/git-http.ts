import * as fs from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { CheckoutTally } from './checkout-budget.js';
import { isSfError, SfError } from '../errors/index.js';
import { isFullSha } from './git-spec.js';
import { UNSAFE_TREE_HINT, walkCheckoutTree } from './git-tree-walk.js';
import { redactText, redactUrl, stripCredentials, urlCredentials } from './redact.js';
import type { SourceLimits } from './types.js';
import { isLoopbackHost } from '../text/loopback.js';

/**
 * Clone over git smart HTTP with isomorphic-git (no system git needed): a shallow, single-branch
 * clone of depth 1 for a branch or tag; a full clone then a detached checkout for a commit id.
 *
 * Credentials are offered only when the server asks (HTTP 401): first those in the URL, else
 * `SF_GIT_TOKEN` (user `SF_GIT_USERNAME`, default `x-access-token`) — the env token only over
 * https or to a loopback host, so it never crosses the network in clear text. Credentials stay in
 * memory; every message is redacted.
 */

export interface HttpCloneRequest {
  url: string;
  ref?: string;
  dest: string;
  limits: SourceLimits;
  env: NodeJS.ProcessEnv;
}

export interface CloneResult {
  commit: string;
  /** the ref asked for, or the branch the remote HEAD pointed at */
  ref?: string;
}

type Auth = { username: string; password: string };

/** The credentials to offer on a 401 for `url`, or undefined. */
export function httpCredentials(url: string, env: NodeJS.ProcessEnv): Auth | undefined {
  const fromUrl = urlCredentials(url);
  if (fromUrl) return fromUrl;
  const token = env.SF_GIT_TOKEN;
  if (!token) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !isLoopbackHost(parsed.hostname)) return undefined;
  return { username: env.SF_GIT_USERNAME || 'x-access-token', password: token };
}

export async function cloneOverHttp(req: HttpCloneRequest): Promise<CloneResult> {
  const git = await import('isomorphic-git');
  const nodeHttp = (await import('isomorphic-git/http/node')).default;
  const url = stripCredentials(req.url).replace(/\/$/, '');
  const shown = redactUrl(req.url);
  const auth = httpCredentials(req.url, req.env);
  // SF_GIT_TOKEN is set but not offered to this URL (plain http to another machine): the auth error must say so
  const withheld = auth === undefined && Boolean(req.env.SF_GIT_TOKEN);
  const secrets = [auth?.password, req.env.SF_GIT_TOKEN];
  const signal = AbortSignal.timeout(req.limits.gitTimeoutMs);
  let received = 0;
  // kept aside: isomorphic-git may swallow an error thrown from a body iterator and report another
  let overLimit: SfError | undefined;

  async function* counted(body: AsyncIterableIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      received += chunk.byteLength;
      if (received > req.limits.maxGitBytes) {
        overLimit ??= new SfError('SF_E_LIMIT', `cloning ${shown} read more than ${req.limits.maxGitBytes} bytes`, {
          hint: 'point the source at a smaller repository, or a ref/subpath with less history',
        });
        throw overLimit;
      }
      yield chunk;
    }
  }
  const http = {
    async request(r: Parameters<typeof nodeHttp.request>[0]) {
      // agent false: a fresh agent per request, for whichever protocol a redirect leads to. Node's
      // global agents drop a socket after 5 s of silence, and a server packing a large repository
      // is silent longer than that; the clone's own deadline (`signal`) is the timeout that counts
      const res = await nodeHttp.request({ ...r, agent: false as unknown as undefined, signal, fetchOptions: { maxRedirects: req.limits.maxRedirects } });
      return res.body ? { ...res, body: counted(res.body) } : res;
    },
  };
  const common = {
    fs,
    http,
    dir: req.dest,
    url,
    onAuth: () => auth ?? { cancel: true },
    onAuthFailure: () => ({ cancel: true }),
  };
  try {
    // cloned without checkout: the tree is counted against the checkout budget first
    if (req.ref && isFullSha(req.ref)) {
      await git.clone({ ...common, noCheckout: true, noTags: true });
    } else {
      try {
        await git.clone({ ...common, ref: req.ref, singleBranch: true, depth: 1, noTags: true, noCheckout: true });
      } catch (err) {
        // isomorphic-git finds a tag only when it fetches tags; try branches first (less data)
        if (!req.ref || (err as { code?: string }).code !== 'NotFoundError') throw err;
        await rm(req.dest, { recursive: true, force: true });
        await git.clone({ ...common, ref: req.ref, singleBranch: true, depth: 1, noTags: false, noCheckout: true });
      }
    }
    const branch = (await git.currentBranch({ fs, dir: req.dest })) ?? undefined;
    const target = req.ref ?? branch ?? 'HEAD';
    const budget = { maxBytes: req.limits.maxGitBytes, maxFiles: req.limits.maxGitFiles, maxDepth: req.limits.maxGitDepth };
    // one object cache for the count and the checkout: the pack is read once
    const cache = {};
    await walkCheckoutTree(git, req.dest, target, new CheckoutTally(budget, shown), { shown, signal, cache });
    const written = countingFs(req.dest, new CheckoutTally(budget, shown));
    await quietly(() => git.checkout({ fs: written.fs, dir: req.dest, ref: target, cache }));
    if (written.over()) throw written.over();
    const commit = await git.resolveRef({ fs, dir: req.dest, ref: 'HEAD' });
    return { commit, ref: req.ref ?? branch };
  } catch (err) {
    if (overLimit) throw overLimit;
    throw gitHttpError(err, shown, req.ref, secrets, signal.aborted ? req.limits.gitTimeoutMs : undefined, withheld);
  }
}

/**
 * Runs `task` with console.error and console.log muted: isomorphic-git's checkout prints the stack
 * of every failed write ("[isomorphic-git checkout] task rejected") before throwing them together,
 * which reaches the user's terminal even with --json. The error thrown is reported instead.
 */
async function quietly<T>(task: () => Promise<T>): Promise<T> {
  const { error, log } = console;
  console.error = () => undefined;
  console.log = () => undefined;
  try {
    return await task();
  } finally {
    console.error = error;
    console.log = log;
  }
}

/**
 * The fs isomorphic-git checks out with: node's, with the bytes and files written outside `.git`
 * counted. Past the budget nothing more is written and `over()` holds the error, which the clone
 * throws after the checkout: a write that failed would make isomorphic-git print its stack.
 */
function countingFs(dir: string, tally: CheckoutTally): { fs: typeof fs; over(): SfError | undefined } {
  const gitDir = join(dir, '.git') + sep;
  const p = fs.promises;
  let over: SfError | undefined;
  /** true when the file may be written */
  const admit = (file: unknown, bytes: number) => String(file).startsWith(gitDir) || (!over && !(over = tally.count(bytes)));
  const promises: typeof fs.promises = {
    ...p,
    writeFile: async (file, data, options) => {
      if (admit(file, typeof data === 'string' ? Buffer.byteLength(data) : ArrayBuffer.isView(data) ? data.byteLength : 0)) await p.writeFile(file, data, options);
    },
    symlink: async (target, path, type) => {
      if (admit(path, 0)) await p.symlink(target, path, type);
    },
  };
  return { fs: { promises } as unknown as typeof fs, over: () => over };
}

function gitHttpError(err: unknown, shown: string, ref: string | undefined, secrets: (string | undefined)[], timedOutMs?: number, withheld = false): SfError {
  if (isSfError(err)) return err;
  // the checkout's failed writes, thrown together: the first one says what went wrong
  const several = (err as { code?: string; errors?: unknown[] }).errors;
  if ((err as { code?: string }).code === 'MultipleGitError' && Array.isArray(several) && several.length > 0) {
    return gitHttpError(several[0], shown, ref, secrets, timedOutMs, withheld);
  }
  if (timedOutMs !== undefined) {
    return new SfError('SF_E_GIT', `cloning ${shown} timed out after ${timedOutMs} ms`, { data: { url: shown }, hint: 'check that the server is reachable, or clone a smaller repository or ref' });
  }
  const e = err as { code?: string; message?: string; data?: { statusCode?: number; what?: string } };
  const message = redactText(e.message ?? String(err), secrets);
  if (e.code === 'UserCanceledError' && withheld) {
    return new SfError('SF_E_AUTH', `${shown} requires authentication; SF_GIT_TOKEN is set but was not sent: it goes only over https or to this machine, and this URL is plain http to another host`, {
      hint: 'use the https:// URL of the repository; on a network you trust, put the credentials in the URL (http://user:token@host/...)',
      data: { url: shown },
    });
  }
  if (e.code === 'UserCanceledError') {
    return new SfError('SF_E_AUTH', `${shown} requires authentication and the credentials offered were missing or refused`, {
      hint: 'put credentials in the URL (https://user:token@host/...) or set SF_GIT_TOKEN (and SF_GIT_USERNAME if the server needs one)',
      data: { url: shown },
    });
  }
  if (e.code === 'HttpError') {
    const status = e.data?.statusCode;
    const code = status === 404 ? 'SF_E_NOT_FOUND' : status === 401 || status === 403 ? 'SF_E_AUTH' : 'SF_E_GIT';
    return new SfError(code, `git server answered HTTP ${status} for ${shown}`, {
      hint: status === 404 ? 'check the repository URL (a smart-HTTP git URL usually ends in .git)' : 'check the URL and your access to it',
      data: { url: shown, status },
    });
  }
  if (e.code === 'UnsafeFilepathError') {
    return new SfError('SF_E_UNSAFE_PATH', `${shown} contains an unsafe tree entry (${message}); nothing was installed`, {
      hint: UNSAFE_TREE_HINT,
      data: { url: shown },
    });
  }
  if (e.code === 'NotFoundError' && !ref) {
    return new SfError('SF_E_NOT_FOUND', `${shown} has no commits on its default branch (an empty repository, or HEAD names a branch that does not exist)`, {
      hint: 'push a commit to the repository, or name an existing branch or tag after # (e.g. #main)',
      data: { url: shown },
    });
  }
  if (e.code === 'NotFoundError' && ref) {
    return new SfError('SF_E_NOT_FOUND', `ref "${ref}" was not found in ${shown}`, {
      hint: 'use an existing branch, tag or full 40-hex commit after #',
      data: { url: shown, ref },
    });
  }
  return new SfError('SF_E_GIT', `cloning ${shown} failed: ${message}`, { data: { url: shown }, hint: 'check the URL and that the server speaks git smart HTTP' });
}
