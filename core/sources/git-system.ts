import { lazyBuiltin } from '../runtime/lazy-builtin.js';
import { SfError } from '../errors/index.js';
import { isFullSha, type GitTransport } from './git-spec.js';
import type { CloneResult } from './git-http.js';
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
}

/** `git -c ...` options that allow exactly one transport. */
export function transportConfig(transport: Exclude<GitTransport, 'http'>): string[] {
  return ['-c', 'protocol.allow=never', '-c', `protocol.${transport}.allow=always`];
}

/** The argument vectors the clone runs, in order (pure; tested directly). */
export function systemCloneCommands(req: Pick<SystemCloneRequest, 'transport' | 'url' | 'ref' | 'dest'>): string[][] {
  const cfg = transportConfig(req.transport);
  if (req.ref && isFullSha(req.ref)) {
    return [
      [...cfg, 'clone', '--quiet', '--no-checkout', '--no-tags', '--', req.url, req.dest],
      ['-C', req.dest, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', req.ref, '--'],
    ];
  }
  const branch = req.ref ? ['--branch', req.ref] : [];
  return [[...cfg, 'clone', '--quiet', '--depth', '1', '--single-branch', '--no-tags', ...branch, '--', req.url, req.dest]];
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
      env: { PATH: process.env.PATH, ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
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
  for (const args of systemCloneCommands(req)) {
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

function systemGitError(result: RunResult, shown: string, ref?: string): SfError {
  if (result.timedOut) return new SfError('SF_E_GIT', `fetching ${shown} with git timed out`, { data: { url: shown } });
  const stderr = redactText(result.stderr.trim()).split('\n').slice(-4).join(' / ');
  if (ref && /Remote branch .* not found|did not match any file|reference is not a tree|unable to read tree/i.test(result.stderr)) {
    return new SfError('SF_E_NOT_FOUND', `ref "${ref}" was not found in ${shown}`, {
      hint: 'use an existing branch, tag or full 40-hex commit after #',
      data: { url: shown, ref, stderr },
    });
  }
  if (/does not appear to be a git repository|repository .* does not exist|not found/i.test(result.stderr)) {
    return new SfError('SF_E_NOT_FOUND', `no git repository at ${shown}: ${stderr}`, { data: { url: shown, stderr } });
  }
  return new SfError('SF_E_GIT', `git could not fetch ${shown}: ${stderr}`, {
    hint: 'check the URL, your ssh keys (ssh-add -l) and that the host is reachable',
    data: { url: shown, stderr },
  });
}
