import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { diskFullAt, SfError, type Diagnostic } from '../errors/index.js';
import { hashSkit, type SkitHashes } from '../skit/hash.js';
import { validateSkitDirSync } from '../skit/validate.js';
import { removeOnInterrupt } from '../runtime/interrupt-cleanup.js';
import { redactText, resolveSource, type ResolvedSource, type ResolveOptions } from '../sources/index.js';
import { trace } from '../trace/startup.js';
import type { Session } from './context.js';
import type { PreparedRelease } from './plan-types.js';
import { releaseAudit } from './audit.js';

export interface PrepareOptions {
  version?: string;
  /** hub sources without a version: the caret range to take the newest installable release from (ResolveOptions.range) */
  range?: string;
  resolvers?: ResolveOptions['resolvers'];
}

export interface Prepared {
  prepared: PreparedRelease;
  hashes: SkitHashes;
  /** the materialized SKIT root (inside `workDir` for remote sources) */
  sourceRoot: string;
  /** warnings and notes from resolution and validation */
  diagnostics: Diagnostic[];
  /** deletes the fetched copy */
  cleanup: () => Promise<void>;
}

/** Drops any user:password@ left in a URL-like string; Forge never stores credentials. */
export function withoutCredentials(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i, (_, scheme: string) => scheme);
}

/**
 * The name a skill at the root of `resolved` must carry: its directory's, for a local directory or
 * a git subpath; none for a tree fetched into scratch (an archive unpacks into `tree`, a clone into
 * `git-<random>`, a hub release into `hub-<id>-<version>`), where the skill's name names it.
 */
function rootDirName(resolved: ResolvedSource): string | null | undefined {
  if (resolved.kind === 'local-dir' || resolved.kind === 'local-skill') return undefined;
  return resolved.subpath ? basename(resolved.subpath) : null;
}

/**
 * Resolves `source` to a local tree, validates it and hashes it: everything an install needs
 * before it touches the library. Fetched copies live in `$SF_HOME/tmp/src-<pid>-*` until
 * `cleanup`. Throws SF_E_VALIDATION (with `data.diagnostics`) when the SKIT is invalid.
 */
export async function prepareRelease(session: Session, source: string, options: PrepareOptions = {}): Promise<Prepared> {
  // made by resolveSource only when the source needs it (a local directory is used in place)
  const workDir = join(session.paths.tmp, `src-${process.pid}-${randomBytes(6).toString('hex')}`);
  const forget = removeOnInterrupt(workDir);
  const cleanup = async () => {
    if (existsSync(workDir)) await rm(workDir, { recursive: true, force: true });
    forget();
  };
  try {
    session.progress(`resolving ${redactText(source)}`);
    const resolved = await resolveSource(source, { cwd: session.cwd, workDir, version: options.version, range: options.range, env: session.env, resolvers: options.resolvers });
    trace('source resolved');
    session.progress('validating');
    // synchronous IO: an install waits for the verdict anyway, and a SKIT's few files read faster
    // without a thread-pool round trip each (prepareRelease runs in CLI commands, never in a server)
    const validation = validateSkitDirSync(resolved.dir, { descriptor: resolved.descriptor, provisionalId: resolved.provisionalId, rootName: rootDirName(resolved) });
    if (!validation.ok || !validation.layout) {
      throw new SfError('SF_E_VALIDATION', `the SKIT from ${withoutCredentials(resolved.canonical)} is not valid`, {
        hint: 'fix the errors listed above (see `sf skit validate`)',
        data: { diagnostics: validation.diagnostics },
      });
    }
    trace('validated');
    session.progress('hashing');
    const hashes = await hashSkit(resolved.dir, validation.layout);
    trace('hashed');
    const layout = validation.layout;
    const skills = hashes.skills.map((s) => ({
      name: s.name,
      id: s.id,
      hash: s.hash,
      path: s.path,
      defaultEnabled: layout.skills.find((k) => k.name === s.name)?.defaultEnabled ?? true,
    }));
    const prepared: PreparedRelease = {
      skitId: layout.id,
      provisional: layout.provisional,
      release: releaseOf(resolved),
      bundleHash: hashes.bundle,
      skills,
      audit: releaseAudit(layout, validation.frontmatter, validation.diagnostics, skills),
      source: {
        kind: String(resolved.kind),
        canonical: withoutCredentials(resolved.canonical),
        fingerprint: resolved.fingerprint,
        ...(resolved.ref ? { ref: resolved.ref } : {}),
        ...(resolved.commit ? { commit: resolved.commit } : {}),
        ...(resolved.subpath ? { subpath: resolved.subpath } : {}),
        ...hubField(resolved, 'range'),
      },
      ...hubField(resolved, 'newer'),
    };
    const diagnostics = [...(resolved.diagnostics ?? []), ...validation.diagnostics.filter((d) => d.severity !== 'error')];
    return { prepared, hashes, sourceRoot: resolved.dir, diagnostics, cleanup };
  } catch (e) {
    await cleanup();
    // what a download or an unpack writes goes to $SF_HOME/tmp: a full disk there names $SF_HOME
    throw diskFullAt(e, `$SF_HOME (${session.paths.home})`, session.paths.home) ?? e;
  }
}

/**
 * A string field a resolver adds to its result (the hub's `range` and `newer`, see
 * HubResolvedSource), as an object to spread: empty when the resolver did not report it.
 */
function hubField(resolved: ResolvedSource, key: 'range' | 'newer'): { range?: string; newer?: string } {
  const value = (resolved as ResolvedSource & { range?: unknown; newer?: unknown })[key];
  return typeof value === 'string' ? { [key]: value } : {};
}

/** The release of a resolved source: a hub version when a resolver reports one, else git ref + commit. */
function releaseOf(resolved: ResolvedSource): PreparedRelease['release'] {
  const version = (resolved as ResolvedSource & { version?: unknown }).version;
  return {
    ...(typeof version === 'string' ? { version } : {}),
    ...(resolved.ref ? { ref: resolved.ref } : {}),
    ...(resolved.commit ? { commit: resolved.commit } : {}),
  };
}
