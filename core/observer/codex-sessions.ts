import { join } from 'node:path';
import { readdirIfPresent } from '../fs/read-dir.js';
import { userHome } from '../library/paths.js';
import { firstLine } from './bounded-lines.js';
import { isHostSessionId, type HostSessionLookup } from './host-sessions.js';

/**
 * Session registration for Codex, which has no per-invocation hook: Codex itself records each
 * conversation's working directory in the first line (`session_meta`) of its rollout file,
 * $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<conversation id>.jsonl. The observer reads that
 * line for a conversation id it sees in Codex's logs (see host-sessions.ts).
 *
 * The day directory is the day the conversation started, and a resumed conversation keeps
 * appending to that file, so "today" is not enough: the id (a UUIDv7 holds its start time) says
 * where to look, and otherwise the most recent day directories are searched.
 */

const MAX_FIRST_LINE = 1024 * 1024;
/** day directories searched, newest first, for an id that names no start time */
const MAX_SCANNED_DAYS = 90;

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

/** The start time a UUIDv7 id holds (its first 48 bits, Unix ms), or undefined for another id. */
export function uuidV7Time(id: string): Date | undefined {
  const m = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.exec(id);
  return m ? new Date(Number.parseInt(m[1] + m[2], 16)) : undefined;
}

/** The most recent existing sessions/YYYY/MM/DD directories, newest first. */
async function recentDayDirs(sessions: string, max: number): Promise<string[]> {
  const out: string[] = [];
  const desc = (names: string[], digits: number) => names.filter((n) => n.length === digits && /^\d+$/.test(n)).sort().reverse();
  for (const y of desc(await readdirIfPresent(sessions, { unreadable: 'empty' }), 4)) {
    for (const m of desc(await readdirIfPresent(join(sessions, y), { unreadable: 'empty' }), 2)) {
      for (const d of desc(await readdirIfPresent(join(sessions, y, m), { unreadable: 'empty' }), 2)) {
        out.push(join(sessions, y, m, d));
        if (out.length >= max) return out;
      }
    }
  }
  return out;
}

/** The rollout file of conversation `id`: on the days it likely started, else on the most recent days. */
async function rolloutOf(sessions: string, id: string, at: Date): Promise<string | undefined> {
  const started = uuidV7Time(id);
  const likely = [...new Set([...(started ? dayDirs(sessions, started) : []), ...dayDirs(sessions, at)])];
  const inDir = async (dir: string) => {
    const name = (await readdirIfPresent(dir, { unreadable: 'empty' })).find((n) => n.startsWith('rollout-') && n.endsWith(`-${id}.jsonl`));
    return name ? join(dir, name) : undefined;
  };
  for (const dir of likely) {
    const file = await inDir(dir);
    if (file) return file;
  }
  // only when the likely days do not have it: the scan costs a directory listing per day
  for (const dir of await recentDayDirs(sessions, MAX_SCANNED_DAYS)) {
    const file = likely.includes(dir) ? undefined : await inDir(dir);
    if (file) return file;
  }
  return undefined;
}

/** The cwd Codex recorded for conversation `id`, or undefined when no rollout file says. */
export async function codexSessionCwd(codexHome: string, id: string, at: Date = new Date()): Promise<string | undefined> {
  if (!isHostSessionId(id)) return undefined;
  const file = await rolloutOf(join(codexHome, 'sessions'), id, at);
  const line = file ? await firstLine(file, MAX_FIRST_LINE) : undefined;
  if (!line) return undefined;
  try {
    const meta = JSON.parse(line) as { type?: unknown; payload?: { id?: unknown; cwd?: unknown } };
    if (meta.type === 'session_meta' && meta.payload?.id === id && typeof meta.payload.cwd === 'string' && meta.payload.cwd.startsWith('/')) return meta.payload.cwd;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
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
