import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SfError, hasErrno } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { ensureSfHome } from '../library/home.js';
import { sfPaths } from '../library/paths.js';
import type { TokenSource } from './bearer.js';

/**
 * Hub credentials of the local user: `$SF_HOME/credentials.json`, mode 0600, written atomically
 * and durably (temp file, fsync, rename, directory fsync). Tokens live only here or in
 * `SF_HUB_TOKEN`; they are never printed, put in argv, or written to any other file.
 */

export interface HubLogin {
  /** the hub's origin, e.g. `https://hub.example.com` */
  url: string;
  token: string;
  login: string;
  savedAt: string;
}

export interface CredentialsFile {
  schema: 1;
  /** origin of the hub `owner/name` sources and `sf skit publish` use by default */
  default?: string;
  hubs: Record<string, HubLogin>;
}

/** The hub a command talks to and the token it sends (none for anonymous reads). */
export interface HubTarget {
  url: string;
  token?: string;
  /** where `token` came from, named by errors that never show the token itself */
  tokenSource?: TokenSource;
}

export const credentialsPath = (env: NodeJS.ProcessEnv = process.env) => join(sfPaths(env).home, 'credentials.json');

/** `https://Hub.example.com:443/x/` -> `https://hub.example.com`; refuses anything but http(s) without credentials. */
export function hubOrigin(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SfError('SF_E_USAGE', `"${url}" is not a URL`, { hint: 'pass the hub URL, e.g. --hub https://hub.example.com' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new SfError('SF_E_USAGE', `the hub URL must be http(s), not ${parsed.protocol}`, { hint: 'e.g. --hub https://hub.example.com' });
  }
  if (parsed.username || parsed.password) {
    throw new SfError('SF_E_USAGE', 'the hub URL must not contain credentials', { hint: 'pass the token on stdin or in SF_HUB_TOKEN' });
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${parsed.host.toLowerCase()}${path}`;
}

/** Reads the credentials file; an absent file is an empty one. */
export async function readCredentials(env: NodeJS.ProcessEnv = process.env): Promise<CredentialsFile> {
  const path = credentialsPath(env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (hasErrno(e, 'ENOENT')) return { schema: 1, hubs: {} };
    throw e;
  }
  try {
    const data = JSON.parse(text) as CredentialsFile;
    if (data?.schema !== 1 || typeof data.hubs !== 'object' || data.hubs === null) throw new Error('unexpected shape');
    return data;
  } catch {
    throw new SfError('SF_E_CONFIG', `${path} is not a Forge credentials file`, {
      location: { file: path },
      hint: 'delete it and run `sf login --hub <url>` again',
    });
  }
}

/** Writes the credentials file atomically and durably with mode 0600 (the directory is created 0700). */
export async function writeCredentials(data: CredentialsFile, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const path = credentialsPath(env);
  ensureSfHome(dirname(path));
  await writeFileAtomic(path, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
}

/** Stores a login and makes that hub the default. */
export async function saveLogin(login: HubLogin, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const data = await readCredentials(env);
  data.hubs[login.url] = login;
  data.default = login.url;
  await writeCredentials(data, env);
}

/** Forgets the login of `url` (default: the default hub); returns the origin removed, if any. */
export async function removeLogin(url: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const data = await readCredentials(env);
  const origin = url ? hubOrigin(url) : data.default;
  if (!origin || !data.hubs[origin]) return undefined;
  delete data.hubs[origin];
  if (data.default === origin) data.default = Object.keys(data.hubs)[0];
  await writeCredentials(data, env);
  return origin;
}

/**
 * The hub to use: `--hub`, else `SF_HUB_URL`, else the default login. The token: `SF_HUB_TOKEN`,
 * else the stored login of that hub, else none (anonymous). Undefined when no hub is known.
 */
export async function resolveHubTarget(hubOption: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<HubTarget | undefined> {
  const data = await readCredentials(env);
  // an empty SF_HUB_URL (e.g. `SF_HUB_URL= sf ...`) means unset, not "no hub"
  const chosen = hubOption || env.SF_HUB_URL || data.default;
  if (!chosen) return undefined;
  const url = hubOrigin(chosen);
  // trimmed as `sf login` trims it; a blank SF_HUB_TOKEN means unset
  const fromEnv = env.SF_HUB_TOKEN?.trim();
  if (fromEnv) return { url, token: fromEnv, tokenSource: 'SF_HUB_TOKEN' };
  const stored = data.hubs[url]?.token;
  return { url, ...(stored ? { token: stored, tokenSource: credentialsPath(env) } : {}) };
}

/** Every hub known from the environment and the credentials file, the default first. */
export async function knownHubs(env: NodeJS.ProcessEnv = process.env): Promise<HubTarget[]> {
  const data = await readCredentials(env);
  const first = await resolveHubTarget(undefined, env);
  const rest = Object.values(data.hubs)
    .filter((h) => h.url !== first?.url)
    .map((h) => ({ url: h.url, token: h.token, tokenSource: credentialsPath(env) }));
  return first ? [first, ...rest] : rest;
}
