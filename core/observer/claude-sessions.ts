import { readdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { userHome } from '../library/paths.js';
import { boundedLines, type LineLimits } from './bounded-lines.js';
import { isHostSessionId, type HostSessionLookup } from './host-sessions.js';

/**
 * Session registration for Claude Code without a hook: Claude writes each session's transcript
 * to $CLAUDE_CONFIG_DIR/projects/<cwd with every non-alphanumeric as "-">/<session id>.jsonl, and
 * its message lines carry `"sessionId"` and the session's `"cwd"` (the first lines are queue
 * records without a cwd; the first user message, about the third line, has it). The directory
 * name cannot be turned back into the path, so the observer finds `<id>.jsonl` in any project
 * directory and reads the cwd from the first line that names the same session.
 */

/** The first transcript lines are small; a megabyte prompt line is skipped, not parsed. */
const LIMITS: LineLimits = { maxLines: 64, maxLineBytes: 1024 * 1024, maxBytes: 4 * 1024 * 1024 };
/** project directories looked at per lookup at most */
const MAX_PROJECTS = 10_000;
const MAX_CWD = 4096;

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
  return isAbsolute(cwd) && cwd.length <= MAX_CWD && !cwd.includes('\0') ? cwd : undefined;
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

/** Claude Code sessions (log attribute `session.id`) found through their transcripts in `configDir`. */
export const claudeSessionLookup = (configDir: string): HostSessionLookup => ({
  host: 'claude-code', attribute: 'session.id', cwdOf: (id) => claudeSessionCwd(configDir, id),
});
