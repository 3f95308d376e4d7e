import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostContext, ProjectionRequest, Scope } from '../core/install/host-adapter.js';
import { tempDir } from './index.js';

export interface AdapterFixture {
  root: string;
  home: string;
  project: string;
  sfHome: string;
  /** the two store skill directories */
  sourceDirs: { alpha: string; beta: string };
  ctx(scope?: Scope): HostContext;
  /** acme/kit with alpha and beta; `disabled` names the children that are off */
  request(disabled?: string[]): ProjectionRequest;
  cleanup(): Promise<void>;
}

export const SKILL_BODY = (name: string) => `---\nname: ${name}\ndescription: Skill ${name}. Use when the user asks for ${name}.\n---\n# ${name}\nReply with the word ${name.toUpperCase()}-LOADED.\n`;

/**
 * A temp HOME, a git project and a $SF_HOME whose store holds a two-skill SKIT (acme/kit: alpha,
 * beta), laid out like core/library's store (store/<bundle hex>/skills/<name>).
 */
export async function adapterFixture(): Promise<AdapterFixture> {
  const tmp = await tempDir('sf-adapter-');
  const root = tmp.path;
  const home = join(root, 'home');
  const project = join(root, 'proj');
  const sfHome = join(home, '.sf');
  const bundle = 'ab'.repeat(32);
  const store = join(sfHome, 'store', bundle, 'skills');
  const sourceDirs = { alpha: join(store, 'alpha'), beta: join(store, 'beta') };
  for (const [name, dir] of Object.entries(sourceDirs)) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'SKILL.md'), SKILL_BODY(name));
  }
  await mkdir(project, { recursive: true });
  execFileSync('git', ['init', '-q', project]);
  return {
    root, home, project, sfHome, sourceDirs,
    ctx: (scope: Scope = 'project') => ({
      home, scope, projectRoot: scope === 'project' ? project : undefined,
      backupDir: join(sfHome, 'backups'),
      env: { HOME: home, SF_HOME: sfHome, PATH: '/nonexistent' },
    }),
    request: (disabled: string[] = []) => ({
      skitId: 'acme/kit', release: '1.0.0', bundleHash: `sha256:${bundle}`,
      skills: (['alpha', 'beta'] as const).map((name) => ({
        skillId: `acme/kit:${name}`, name, sourceDir: sourceDirs[name], contentHash: `sha256:${name}`, enabled: !disabled.includes(name),
      })),
    }),
    cleanup: tmp.cleanup,
  };
}
