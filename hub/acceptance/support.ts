import { mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { issueToken } from '../auth/tokens.js';
import { startHub, type RunningHub } from '../serve.js';
import type { RegistryLimits } from '../limits.js';
import type { Scope } from '../storage/ports.js';
import { runSf, tempDir, type RunResult } from '../../test-support/index.js';

/** A real hub on 127.0.0.1 (port 0) over a temp data dir, plus isolated HOME/SF_HOME per person. */
export interface LiveHub {
  hub: RunningHub;
  dataDir: string;
  root: string;
  /** creates a hub user and a PAT; returns the token */
  token(login: string, scopes?: Scope[]): string;
  /** an isolated person: own HOME and SF_HOME; `sf(...)` runs the built CLI as them */
  person(name: string): Promise<Person>;
  close(): Promise<void>;
}

export interface Person {
  home: string;
  env: NodeJS.ProcessEnv;
  sf(args: string[], options?: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv }): Promise<RunResult>;
}

/** Fails with the command's output when it did not exit 0. */
export function ok(r: RunResult, what: string): RunResult {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

export async function liveHub(options: { limits?: Partial<RegistryLimits> } = {}): Promise<LiveHub> {
  const tmp = await tempDir('sf-hub-live-');
  const dataDir = join(tmp.path, 'hub-data');
  await mkdir(dataDir);
  const hub = await startHub({ dataDir, port: 0, limits: options.limits });
  const users = new Map<string, string>();
  return {
    hub,
    dataDir,
    root: tmp.path,
    token(login, scopes = ['registry:read', 'registry:write']) {
      let id = users.get(login);
      if (!id) users.set(login, (id = hub.storage.accounts.createUser(login, false).id));
      return issueToken(hub.storage.tokens, { userId: id, kind: 'pat', name: 'test', scopes }).secret;
    },
    async person(name) {
      const home = join(tmp.path, name);
      await mkdir(home, { recursive: true });
      // undefined drops a variable of the parent environment from the child's
      // PATH without node_modules/.bin: the agent binaries installed as dev dependencies would count as agents on the machine
      const env: NodeJS.ProcessEnv = { HOME: home, SF_HOME: join(home, '.sf'), SF_HUB_URL: undefined, SF_HUB_TOKEN: undefined, XDG_CONFIG_HOME: join(home, '.config'), CLAUDE_CONFIG_DIR: undefined, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
      return {
        home,
        env,
        sf: (args, o = {}) => runSf(args, { cwd: o.cwd ?? home, input: o.input, env: { ...env, ...o.env } }),
      };
    },
    async close() {
      await hub.close();
      await tmp.cleanup();
    },
  };
}

/** Octal permission bits of a path. */
export const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
