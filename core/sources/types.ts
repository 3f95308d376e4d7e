import type { Diagnostic } from '../errors/index.js';

/** Size and time limits for remote sources. Every field has a default (see `DEFAULT_LIMITS`). */
export interface SourceLimits {
  /** whole-request timeout for one HTTP download, including redirects (ms) */
  timeoutMs: number;
  /** at most this many redirects are followed */
  maxRedirects: number;
  /** largest SKILL.md accepted from a URL (bytes) */
  maxSkillBytes: number;
  /** largest archive accepted from a URL (bytes) */
  maxArchiveBytes: number;
  /** most bytes read from a git smart-HTTP server in one clone, and most bytes a git checkout may write */
  maxGitBytes: number;
  /** most entries (files, symlinks, submodules and directories) a git checkout may write */
  maxGitFiles: number;
  /** most path segments of one entry of a git checkout */
  maxGitDepth: number;
  /** whole-clone timeout for git (ms) */
  gitTimeoutMs: number;
}

export const DEFAULT_LIMITS: SourceLimits = {
  timeoutMs: 60_000,
  maxRedirects: 5,
  maxSkillBytes: 1024 * 1024,
  maxArchiveBytes: 64 * 1024 * 1024,
  maxGitBytes: 256 * 1024 * 1024,
  maxGitFiles: 100_000,
  maxGitDepth: 256,
  gitTimeoutMs: 300_000,
};

/**
 * The mode of workDir and of any missing directory above it: scratch holds fetched sources, and the
 * first command on a fresh machine may create $SF_HOME itself this way (it must stay 0700).
 */
export const SCRATCH_MODE = 0o700;

export interface ResolveOptions {
  /** base for relative local paths */
  cwd: string;
  /** a private temp dir the caller owns and deletes (created when a source needs it); remote sources and archives are materialized inside it */
  workDir: string;
  /** a release version (hub) or a git ref (git sources, when the source has no `#ref`) */
  version?: string;
  /**
   * hub sources without a version: the caret range (`^1.2.3`) to take the newest installable
   * release from, instead of the latest release (`sf skit update`); other resolvers ignore it
   */
  range?: string;
  /** HTTP client for SKILL.md and archive downloads; defaults to the global fetch */
  fetch?: typeof fetch;
  /** environment for credentials (`SF_GIT_TOKEN`, `SF_GIT_USERNAME`) and the system git; defaults to process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * plug-in resolvers (e.g. the hub registry); consulted after local paths, before the built-in
   * remote resolvers. A function is called only when the source is not a local path.
   */
  resolvers?: SourceResolver[] | (() => Promise<SourceResolver[]>);
  /** overrides of `DEFAULT_LIMITS` */
  limits?: Partial<SourceLimits>;
}

export type SourceKind = 'local-dir' | 'local-skill' | 'skill-url' | 'archive' | 'git';

export interface ResolvedSource {
  kind: SourceKind | (string & {});
  /** credential-free canonical source string: no user:pass, no query or fragment for URLs; git keeps `#ref:subpath` */
  canonical: string;
  /** sha256 hex of the identity key of `canonical` (see identity.ts) */
  fingerprint: string;
  /** `provisional/<first 16 hex of fingerprint>` */
  provisionalId: string;
  /** the ref asked for, or the default branch a git clone checked out */
  ref?: string;
  /** the resolved git commit (40 hex) */
  commit?: string;
  /** the subpath inside the fetched tree that is the SKIT root */
  subpath?: string;
  /** absolute path of the materialized SKIT root */
  dir: string;
  /** synthesized SKIT frontmatter when the tree has Agent Skills (not at its root) but no SKIT README frontmatter */
  descriptor?: SynthesizedDescriptor;
  /** the root of the tree is one Agent Skill (SKILL.md at the root): validation reads it as a single-skill SKIT */
  rootSkill?: true;
  /** non-fatal findings from discovery (warnings and info); fatal ones are thrown */
  diagnostics?: Diagnostic[];
}

/** The SKIT frontmatter object synthesized for an Agent Skills tree. */
export interface SynthesizedDescriptor {
  skit: 1;
  id: string;
  skills: { name: string; path: string; default_enabled: true }[];
}

/**
 * One way of turning a source string into a tree. `matches` must be cheap and synchronous (a
 * syntax check, at most an `existsSync`); `resolve` does the work and throws SfError on failure.
 */
export interface SourceResolver {
  name: string;
  matches(input: string): boolean;
  resolve(input: string, options: ResolveOptions): Promise<ResolvedSource>;
  /** human-readable accepted forms, listed in the hint when nothing matches */
  forms?: string[];
}
