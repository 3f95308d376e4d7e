import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lazyBuiltin } from '../runtime/lazy-builtin.js';
import { SfError } from '../errors/index.js';
import { CheckoutTally, type CheckoutBudget } from './checkout-budget.js';
import { isFullSha, type GitTransport } from './git-spec.js';
import type { CloneResult } from './git-http.js';
import { UNSAFE_TREE_HINT } from './git-tree-walk.js';
import { redactText } from './redact.js';

// loaded only when a clone runs: node:child_process brings net and dgram with it
const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');

/**
 * Clone over ssh:// (and scp-like user@host:path) or file:// with the system `git` binary, which
 * brings the user's ssh agent, keys, known_hosts and GIT_SSH_COMMAND. Arguments are passed as an
 * array (no shell), every URL comes after `--`, and only the one transport needed is allowed, so
 * a crafted source cannot reach `ext::` or other remote helpers.
 */

export interface SystemCloneRequest {
  transport: Exclude<GitTransport, 'http'>;
  url: string;
  ref?: string;
  dest: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** what the checkout may write (the tree's files and blob sizes, counted before checkout) */
  budget?: CheckoutBudget;
}

/**
 * `git -c ...` options that allow exactly one transport, and check every received object as
 * `git fsck` does (tree entries named `..`, `.git` or containing `/` are refused, as
 * isomorphic-git refuses them over http).
 */
export function transportConfig(transport: Exclude<GitTransport, 'http'>): string[] {
  return ['-c', 'protocol.allow=never', '-c', `protocol.${transport}.allow=always`, '-c', 'transfer.fsckObjects=true'];
}

/**
 * Written to the clone's `.git/info/attributes` before checkout, where it outranks the
 * repository's own .gitattributes: no filter (git-lfs or any smudge command the user configured),
 * no `ident` or line-ending conversion. The working tree gets the committed bytes, exactly what
 * the http transport (isomorphic-git) installs, so a commit hashes the same either way.
 */
export const RAW_CHECKOUT_ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';

/**
 * Variables that point git at another repository or change how it reads objects (the list `git
 * rev-parse --local-env-vars` prints, which git itself clears when it enters a submodule). Set in
 * a git hook or `git rebase --exec`, they would make the clone act on the user's repository.
 */
const GIT_LOCAL_ENV = ['GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_CONFIG', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_OBJECT_DIRECTORY', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_IMPLICIT_WORK_TREE', 'GIT_GRAFT_FILE', 'GIT_INDEX_FILE', 'GIT_NO_REPLACE_OBJECTS', 'GIT_REPLACE_REF_BASE', 'GIT_PREFIX', 'GIT_INTERNAL_SUPER_PREFIX', 'GIT_SHALLOW_FILE', 'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM'];

/** The environment the system git runs with: the caller's (ssh agent, GIT_SSH_COMMAND, proxies) without the repository-locating variables. */
export function gitEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  for (const name of GIT_LOCAL_ENV) delete out[name];
  for (const name of Object.keys(out)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) delete out[name];
  return out;
}

/**
 * The argument vectors the clone runs, in order (pure; tested directly): a clone without
 * checkout, then (after RAW_CHECKOUT_ATTRIBUTES is written) the checkout.
 */
export function systemCloneCommands(req: Pick<SystemCloneRequest, 'transport' | 'url' | 'ref' | 'dest'>): [string[], string[]] {
  const cfg = transportConfig(req.transport);
  if (req.ref && isFullSha(req.ref)) {
    return [
      [...cfg, 'clone', '--quiet', '--no-checkout', '--no-tags', '--', req.url, req.dest],
      ['-C', req.dest, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', req.ref, '--'],
    ];
  }
  const branch = req.ref ? ['--branch', req.ref] : [];
  return [
    [...cfg, 'clone', '--quiet', '--no-checkout', '--depth', '1', '--single-branch', '--no-tags', ...branch, '--', req.url, req.dest],
    ['-C', req.dest, 'reset', '--quiet', '--hard', 'HEAD'],
  ];
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runGit(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn('git', args, {
      // PATH falls back to ours so a caller passing only credentials still finds git and ssh
      env: gitEnvironment(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, stdout, stderr, timedOut: code === null && signal === 'SIGKILL' }));
  });
}

export async function cloneWithSystemGit(req: SystemCloneRequest): Promise<CloneResult> {
  const shown = redactText(req.url);
  const [clone, checkout] = systemCloneCommands(req);
  for (const args of [clone, checkout]) {
    if (args === checkout) {
      mkdirSync(join(req.dest, '.git', 'info'), { recursive: true });
      writeFileSync(join(req.dest, '.git', 'info', 'attributes'), RAW_CHECKOUT_ATTRIBUTES);
      if (req.budget !== undefined) await assertCheckoutFits(req, req.budget, shown);
    }
    let result: RunResult;
    try {
      result = await runGit(args, req.env, req.timeoutMs);
    } catch (err) {
      throw new SfError('SF_E_GIT', `could not run the system git to fetch ${shown}: ${(err as Error).message}`, {
        hint: 'install git and make sure it is on PATH; ssh:// and file:// sources need it',
        cause: err,
      });
    }
    if (result.code !== 0) throw systemGitError(result, shown, req.ref);
  }
  const head = await runGit(['-C', req.dest, 'rev-parse', 'HEAD'], req.env, req.timeoutMs);
  const branch = await runGit(['-C', req.dest, 'symbolic-ref', '--quiet', '--short', 'HEAD'], req.env, req.timeoutMs);
  if (head.code !== 0) throw systemGitError(head, shown, req.ref);
  return { commit: head.stdout.trim(), ref: req.ref ?? (branch.code === 0 ? branch.stdout.trim() : undefined) };
}

/**
 * Refuses a checkout over the budget before writing it (see checkout-budget.ts). The listing
 * (files and, with -t, directories: the http transport counts both) is read as it streams and git
 * is stopped at the first entry over the budget: the listing of a "git bomb" would itself never end.
 */
async function assertCheckoutFits(req: SystemCloneRequest, budget: CheckoutBudget, shown: string): Promise<void> {
  const treeish = req.ref && isFullSha(req.ref) ? req.ref : 'HEAD';
  const tally = new CheckoutTally(budget, shown);
  await new Promise<void>((resolve, reject) => {
    const child = childProcess().spawn('git', ['-C', req.dest, 'ls-tree', '-r', '-t', '-l', '-z', '--full-tree', treeish], {
      env: gitEnvironment(req.env),
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: req.timeoutMs,
      killSignal: 'SIGKILL',
    });
    let pending = '';
    let over: unknown;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (over) return;
      const entries = (pending + chunk).split('\0');
      pending = entries.pop()!;
      try {
        // "<mode> <type> <object> <size>\t<path>": the size is "-" for a tree or a submodule (a commit)
        for (const entry of entries) {
          const m = /^\d+ \w+ [0-9a-f]+ +(\d+|-)\t/.exec(entry);
          if (!m) continue;
          const path = entry.slice(m[0].length);
          tally.assertDepth(path.split('/').length, () => path);
          tally.add(m[1] === '-' ? 0 : Number(m[1]));
        }
      } catch (e) {
        over = e;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    // a listing that fails (a ref that is not there) is left to the checkout to report
    child.on('close', () => (over ? reject(over) : resolve()));
  });
}

function systemGitError(result: RunResult, shown: string, ref?: string): SfError {
  if (result.timedOut) return new SfError('SF_E_GIT', `fetching ${shown} with git timed out`, { data: { url: shown }, hint: 'check that the host is reachable, or try again later' });
  const stderr = redactText(result.stderr.trim()).split('\n').slice(-4).join(' / ');
  // transfer.fsckObjects: the repository's trees name "..", ".git" or a path with "/" in one entry
  const unsafe = /^error: object [0-9a-f]+: (\w+): (.*)$/m.exec(result.stderr);
  if (unsafe || /fsck error/.test(result.stderr)) {
    return new SfError('SF_E_UNSAFE_PATH', `${shown} contains an unsafe tree entry${unsafe ? ` (${unsafe[1]}: ${unsafe[2]})` : ''}; nothing was installed`, {
      hint: UNSAFE_TREE_HINT,
      data: { url: shown, stderr },
    });
  }
  if (ref && /Remote branch .* not found|did not match any file|reference is not a tree|unable to read tree/i.test(result.stderr)) {
    return new SfError('SF_E_NOT_FOUND', `ref "${ref}" was not found in ${shown}`, {
      hint: 'use an existing branch, tag or full 40-hex commit after #',
      data: { url: shown, ref, stderr },
    });
  }
  if (!ref && /ambiguous argument 'HEAD'|unknown revision|does not have any commits|empty repository/i.test(result.stderr)) {
    return new SfError('SF_E_NOT_FOUND', `${shown} has no commits on its default branch (an empty repository, or HEAD names a branch that does not exist)`, {
      hint: 'push a commit to the repository, or name an existing branch or tag after # (e.g. #main)',
      data: { url: shown, stderr },
    });
  }
  if (/does not appear to be a git repository|repository .* does not exist|not found/i.test(result.stderr)) {
    return new SfError('SF_E_NOT_FOUND', `no git repository at ${shown}: ${stderr}`, {
      hint: 'check the repository path or URL (a file:// URL names a directory holding a git repository, bare or not)',
      data: { url: shown, stderr },
    });
  }
  return new SfError('SF_E_GIT', `git could not fetch ${shown}: ${stderr}`, {
    hint: 'check the URL, your ssh keys (ssh-add -l) and that the host is reachable',
    data: { url: shown, stderr },
  });
}
