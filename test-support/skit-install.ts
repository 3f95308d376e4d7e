import { mkdir, readFile, readdir, readlink, lstat, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { allAdapters, getAdapter } from '../adapters/index.js';
import type { AdapterRegistry } from '../core/install/adapter-lookup.js';
import { runSf, tempDir, writeTree, type RunResult } from './index.js';

/** Every real host adapter, for core tests that run a library command in-process (core/ cannot import adapters/ itself). */
export const realAdapters = (): AdapterRegistry => ({ get: getAdapter, all: allAdapters });

/**
 * A sandbox for install-family CLI tests: a temp HOME (with $SF_HOME inside), a git project and
 * a SKIT source directory. `sf(...)` runs the built CLI inside the project with that HOME.
 */
export interface InstallSandbox {
  root: string;
  home: string;
  sfHome: string;
  project: string;
  source: string;
  /** the environment `sf` runs with (HOME, $SF_HOME, no host config overrides, a PATH without agent binaries) */
  env: NodeJS.ProcessEnv;
  sf(args: string[], options?: { env?: NodeJS.ProcessEnv; cwd?: string }): Promise<RunResult>;
  /** the `sf skit list --json` records */
  list(): Promise<ListedRecord[]>;
  cleanup(): Promise<void>;
}

export interface ListedRecord {
  skitId: string;
  bundleHash: string;
  aliases: string[];
  enablement: Record<string, Record<string, boolean>>;
  targets: { agent: string; skillRoot: string; paths: { skillId: string; path: string; mode: string }[] }[];
  source: Record<string, unknown>;
  skills: { id: string; name: string; hash: string }[];
  enabled: Record<string, Record<string, boolean>>;
}

export const skillMarkdown = (name: string, extra = '') => `---\nname: ${name}\ndescription: The ${name} skill. Use it when testing installs.\n---\n\n# ${name}\n${extra}\n`;

/** A valid three-skill SKIT (acme/kit) with one shared mapping. */
export function kitTree(version = 'one', skills = ['review', 'summarize', 'lint']): Record<string, string> {
  const entries = skills
    .map((s, i) => `  - name: ${s}\n    path: skills/${s}\n    default_enabled: true\n${i === 0 ? '    shared:\n      - from: shared/style\n        to: references/style\n' : ''}`)
    .join('');
  const tree: Record<string, string> = {
    'README.md': `---\nskit: 1\nid: acme/kit\nskills:\n${entries}---\n\n# kit (${version})\n`,
    'shared/style/guide.md': `# Style ${version}\n`,
  };
  for (const s of skills) tree[`skills/${s}/SKILL.md`] = skillMarkdown(s, version);
  return tree;
}

/**
 * A sandbox in a new temp dir, or at `root` (an existing sandbox directory is reused as it is:
 * its source is not rewritten).
 */
export async function installSandbox(prefix = 'sf-install-', root?: string): Promise<InstallSandbox> {
  const tmp = root ? { path: root, cleanup: async () => undefined } : await tempDir(prefix);
  const home = join(tmp.path, 'home');
  const sfHome = join(home, '.sf');
  const project = join(tmp.path, 'proj');
  const source = join(tmp.path, 'kit');
  const reuse = root !== undefined && (await stat(source).then(() => true, () => false));
  await mkdir(join(project, '.git'), { recursive: true });
  await mkdir(home, { recursive: true });
  if (!reuse) await writeTree(source, kitTree());
  // PATH without node_modules/.bin, so agent binaries installed as dev dependencies do not count as detected agents
  const baseEnv = { HOME: home, SF_HOME: sfHome, XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
  const sb: InstallSandbox = {
    root: tmp.path,
    home,
    sfHome,
    project,
    source,
    env: baseEnv,
    sf: (args, options = {}) => runSf(args, { cwd: options.cwd ?? project, env: { ...baseEnv, ...options.env } }),
    async list() {
      const r = await sb.sf(['skit', 'list', '--json']);
      if (r.code !== 0) throw new Error(`sf skit list failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as ListedRecord[];
    },
    cleanup: tmp.cleanup,
  };
  return sb;
}

/** What a skill root holds: name -> link target, 'dir' or 'file'. */
export async function rootContents(skillRoot: string): Promise<Record<string, string>> {
  let names: string[];
  try {
    names = await readdir(skillRoot);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  const out: Record<string, string> = {};
  for (const n of names.sort()) {
    const st = await lstat(join(skillRoot, n));
    out[n] = st.isSymbolicLink() ? await readlink(join(skillRoot, n)) : st.isDirectory() ? 'dir' : 'file';
  }
  return out;
}

/** The outbox records. */
export async function outbox(sfHome: string): Promise<Record<string, unknown>[]> {
  try {
    return (await readFile(join(sfHome, 'queue', 'outbox.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
