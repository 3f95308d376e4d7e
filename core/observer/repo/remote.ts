/**
 * Git remotes: parsing `[remote "x"] url = ...` out of a git config, and normalizing a remote URL
 * to a credential-free `host/path` identity (lowercase host, no scheme, port, user, `.git`).
 */

/** remote name -> url from the text of a git config file (first url of each remote). */
export function parseRemotes(configText: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current: string | undefined;
  for (const raw of configText.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('#') || line.startsWith(';') || line === '') continue;
    const section = /^\[\s*remote\s+"([^"]+)"\s*\]$/i.exec(line);
    if (section) {
      current = section[1];
      continue;
    }
    if (line.startsWith('[')) {
      current = undefined;
      continue;
    }
    const kv = /^url\s*=\s*(.+)$/i.exec(line);
    if (current && kv && out[current] === undefined) out[current] = kv[1].replace(/^"(.*)"$/, '$1').trim();
  }
  return out;
}

/** `https://user:tok@GitHub.com:443/Owner/Repo.git` and `git@github.com:Owner/Repo.git` -> `github.com/Owner/Repo`. */
export function normalizeRemote(url: string): string | undefined {
  const u = url.trim();
  let host: string;
  let path: string;
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(u);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch (e) {
      if (e instanceof TypeError) return undefined;
      throw e;
    }
    if (parsed.protocol === 'file:') return undefined;
    host = parsed.hostname;
    path = decodeURIComponent(parsed.pathname);
  } else if (scp && !u.startsWith('/')) {
    host = scp[1];
    path = scp[2];
  } else return undefined;
  path = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/i, '');
  if (!host || !path) return undefined;
  return `${host.toLowerCase()}/${path}`;
}
