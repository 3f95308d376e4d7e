import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { userHome } from '../library/paths.js';
import { firstLine } from './bounded-lines.js';
import { isHostSessionId, type HostSessionLookup } from './host-sessions.js';

/**
 * Session registration for Codex, which has no per-invocation hook: Codex itself records each
 * conversation's working directory in the first line (`session_meta`) of its rollout file,
 * $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<conversation id>.jsonl. The observer reads that
 * line for a conversation id it sees in Codex's logs (see host-sessions.ts).
 */

const MAX_FIRST_LINE = 1024 * 1024;

/** $CODEX_HOME, else ~/.codex, for the observer's environment. */
export const codexHomeOf = (env: NodeJS.ProcessEnv): string => env.CODEX_HOME || join(userHome(env), '.codex');

const pad = (n: number) => String(n).padStart(2, '0');

/** Day directories a rollout started around `at` can be in (UTC and local date, that day and the one before). */
function dayDirs(sessions: string, at: Date): string[] {
  const out = new Set<string>();
  for (const offset of [0, -86_400_000]) {
    const d = new Date(at.getTime() + offset);
    out.add(join(sessions, String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate())));
    out.add(join(sessions, String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate())));
  }
  return [...out];
}

/** The cwd Codex recorded for conversation `id`, or undefined when no rollout file says. */
export async function codexSessionCwd(codexHome: string, id: string, at: Date = new Date()): Promise<string | undefined> {
  if (!isHostSessionId(id)) return undefined;
  for (const dir of dayDirs(join(codexHome, 'sessions'), at)) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EACCES')) continue;
      throw e;
    }
    const name = names.find((n) => n.startsWith('rollout-') && n.endsWith(`-${id}.jsonl`));
    if (!name) continue;
    const line = await firstLine(join(dir, name), MAX_FIRST_LINE);
    if (!line) return undefined;
    try {
      const meta = JSON.parse(line) as { type?: unknown; payload?: { id?: unknown; cwd?: unknown } };
      if (meta.type === 'session_meta' && meta.payload?.id === id && typeof meta.payload.cwd === 'string' && meta.payload.cwd.startsWith('/')) return meta.payload.cwd;
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
    }
    return undefined;
  }
  return undefined;
}

/** Codex conversations (log attribute `conversation.id`) found through their rollout files in `codexHome`. */
export const codexSessionLookup = (codexHome: string): HostSessionLookup => ({
  host: 'codex', attribute: 'conversation.id', find: async (id) => {
    const cwd = await codexSessionCwd(codexHome, id);
    return cwd ? { cwd } : undefined;
  },
});
