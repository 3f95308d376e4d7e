import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrno } from '../errors/index.js';
import { userHome } from '../library/paths.js';
import type { OtlpLogsRequest } from '../telemetry/otlp/types.js';

/**
 * Session registration for Codex, which has no per-invocation hook: Codex itself records each
 * conversation's working directory in the first line (`session_meta`) of its rollout file,
 * $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<conversation id>.jsonl. The observer reads that
 * line for a conversation id it sees in Codex's logs — exact evidence written by the host, not a
 * guess — and registers the session, so project-scope skills resolve and repositories are
 * fingerprinted like for the other hosts.
 */

const MAX_FIRST_LINE = 1024 * 1024;
const ID = /^[0-9A-Za-z-]{8,128}$/;

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

async function firstLine(file: string): Promise<string | undefined> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, total);
      if (bytesRead === 0) return undefined;
      const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
      chunks.push(Buffer.from(buf.subarray(0, nl < 0 ? bytesRead : nl)));
      total += bytesRead;
      if (nl >= 0) return Buffer.concat(chunks).toString('utf8');
      if (total > MAX_FIRST_LINE) return undefined;
    }
  } finally {
    await fh.close();
  }
}

/** The cwd Codex recorded for conversation `id`, or undefined when no rollout file says. */
export async function codexSessionCwd(codexHome: string, id: string, at: Date = new Date()): Promise<string | undefined> {
  if (!ID.test(id)) return undefined;
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
    const line = await firstLine(join(dir, name)).catch((e: unknown) => (hasErrno(e, 'ENOENT') || hasErrno(e, 'EACCES') ? undefined : Promise.reject(e)));
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

/** Codex conversation ids in a logs request (resource service.name codex*). */
export function codexConversations(req: OtlpLogsRequest): string[] {
  const ids = new Set<string>();
  for (const r of req.resources) {
    const service = r.resource.attributes['service.name'];
    if (typeof service !== 'string' || !service.startsWith('codex')) continue;
    for (const s of r.scopes) for (const rec of s.items) if (typeof rec.attributes['conversation.id'] === 'string') ids.add(rec.attributes['conversation.id'] as string);
  }
  return [...ids];
}

/**
 * Registers every Codex conversation of `req` that the registry does not know yet (each id is
 * looked up once; a miss is remembered so Codex's steady stream of logs costs one lookup).
 */
export class CodexSessionSource {
  private readonly tried = new Set<string>();

  constructor(private readonly codexHome: string, private readonly known: (id: string) => boolean, private readonly register: (id: string, cwd: string) => Promise<unknown>) {}

  async registerFrom(req: OtlpLogsRequest): Promise<void> {
    for (const id of codexConversations(req)) {
      if (this.known(id) || this.tried.has(id)) continue;
      if (this.tried.size > 10_000) this.tried.clear();
      this.tried.add(id);
      const cwd = await codexSessionCwd(this.codexHome, id);
      if (cwd) await this.register(id, cwd);
    }
  }
}
