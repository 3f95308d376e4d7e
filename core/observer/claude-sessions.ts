import { readdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { userHome } from '../library/paths.js';
import { boundedLines, readSmallRegularFile, type LineLimits } from './bounded-lines.js';
import { isHostSessionId, type FoundSession, type HostSessionLookup } from './host-sessions.js';

/**
 * Session registration for Claude Code without a hook: Claude writes each session's transcript
 * to $CLAUDE_CONFIG_DIR/projects/<cwd with every non-alphanumeric as "-">/<session id>.jsonl, and
 * its message lines carry `"sessionId"` and the session's `"cwd"` (the first lines are queue
 * records without a cwd; the first user message, about the third line, has it). The directory
 * name cannot be turned back into the path, so the observer finds `<id>.jsonl` in any project
 * directory and reads the cwd from the first line that names the same session.
 *
 * While a session runs, Claude also keeps $CLAUDE_CONFIG_DIR/sessions/<pid>.json (pid, sessionId,
 * cwd, version). That record is read first: it names the process too, so the registry can tell
 * when the session ends. It is removed when Claude exits, often before `claude -p` sends its last
 * logs, so the transcript remains the record that is always there.
 */

/** The first transcript lines are small; a megabyte prompt line is skipped, not parsed. */
const LIMITS: LineLimits = { maxLines: 64, maxLineBytes: 1024 * 1024, maxBytes: 4 * 1024 * 1024 };
/** project directories looked at per lookup at most */
const MAX_PROJECTS = 10_000;
const MAX_CWD = 4096;
/** running-session records looked at per lookup at most, and the size of one */
const MAX_LIVE = 1_000;
const MAX_LIVE_BYTES = 64 * 1024;

const validCwd = (cwd: string) => isAbsolute(cwd) && cwd.length <= MAX_CWD && !cwd.includes('\0');

/** $CLAUDE_CONFIG_DIR, else ~/.claude, for the observer's environment. */
export const claudeConfigDirOf = (env: NodeJS.ProcessEnv): string => env.CLAUDE_CONFIG_DIR || join(userHome(env), '.claude');

/** The session's cwd from one transcript line, when the line is about session `id`. */
function cwdOfLine(line: string, id: string): string | undefined {
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
  if (!rec || typeof rec !== 'object') return undefined;
  const { sessionId, cwd } = rec as { sessionId?: unknown; cwd?: unknown };
  if (sessionId !== id || typeof cwd !== 'string') return undefined;
  return validCwd(cwd) ? cwd : undefined;
}

/** The cwd Claude Code recorded for session `id` under `configDir`, or undefined when no transcript says (yet). */
export async function claudeSessionCwd(configDir: string, id: string): Promise<string | undefined> {
  if (!isHostSessionId(id)) return undefined;
  const projects = join(configDir, 'projects');
  let dirs: string[];
  try {
    dirs = (await readdir(projects, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EACCES')) return undefined;
    throw e;
  }
  for (const dir of dirs.slice(0, MAX_PROJECTS)) {
    for await (const line of boundedLines(join(projects, dir, `${id}.jsonl`), LIMITS)) {
      const cwd = cwdOfLine(line, id);
      if (cwd) return cwd;
    }
  }
  return undefined;
}

/** Session `id` from Claude's record of its running sessions (with the pid), or undefined when it is not running (any more). */
export async function claudeLiveSession(configDir: string, id: string): Promise<FoundSession | undefined> {
  if (!isHostSessionId(id)) return undefined;
  const dir = join(configDir, 'sessions');
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || hasErrno(e, 'ENOTDIR') || hasErrno(e, 'EACCES')) return undefined;
    throw e;
  }
  for (const name of names.filter((n) => /^[1-9][0-9]{0,9}\.json$/.test(n)).slice(0, MAX_LIVE)) {
    const bytes = await readSmallRegularFile(join(dir, name), MAX_LIVE_BYTES);
    let rec: unknown;
    try {
      rec = bytes ? JSON.parse(bytes.toString('utf8')) : undefined;
    } catch (e) {
      if (e instanceof SyntaxError) continue; // being rewritten: the transcript or a later lookup will do
      throw e;
    }
    if (!rec || typeof rec !== 'object') continue;
    const { pid, sessionId, cwd, version } = rec as { pid?: unknown; sessionId?: unknown; cwd?: unknown; version?: unknown };
    if (sessionId !== id || typeof cwd !== 'string' || !validCwd(cwd)) continue;
    // the file is named after the process: a pid that disagrees with the name is not trusted
    const ownPid = typeof pid === 'number' && `${pid}.json` === name ? pid : undefined;
    const hostVersion = typeof version === 'string' && /^[0-9A-Za-z.+-]{1,64}$/.test(version) ? version : undefined;
    return { cwd, ...(ownPid ? { pid: ownPid } : {}), ...(hostVersion ? { hostVersion } : {}) };
  }
  return undefined;
}

/** Claude Code sessions (log attribute `session.id`): from the running-session record, else the transcript, in `configDir`. */
export const claudeSessionLookup = (configDir: string): HostSessionLookup => ({
  host: 'claude-code',
  attribute: 'session.id',
  find: async (id) => {
    const live = await claudeLiveSession(configDir, id);
    if (live) return live;
    const cwd = await claudeSessionCwd(configDir, id);
    return cwd ? { cwd } : undefined;
  },
});
