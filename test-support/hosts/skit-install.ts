import assert from 'node:assert/strict';
import { appendFile, mkdir } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runSf, tempDir } from '../index.js';

/** A temp HOME + git project with a two-skill SKIT installed through the real `sf` CLI. */
export interface HostSandbox {
  root: string;
  home: string;
  project: string;
  sfHome: string;
  /** the enabled and the disabled child */
  enabled: string;
  disabled: string;
  /** a line only the enabled / disabled SKILL.md body contains */
  enabledMarker: string;
  disabledMarker: string;
  sf(args: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * `sf skit init` (skills review + summarize), a marker line in each SKILL.md body, then
 * `prepare` (writes the user's own host config), `sf add skit <kit> --agent <agents> --scope project
 * --yes` and `sf skit disable local/kit:summarize` (`options`: no disable, user scope).
 * Needs a built CLI (npx tsc -p .).
 */
export async function installTwoSkillSkit(agents: string, prepare?: (paths: { home: string; project: string }) => Promise<void>, options: { disable?: boolean; scope?: 'project' | 'user' } = {}): Promise<HostSandbox> {
  const tmp = await tempDir('sf-host-');
  const root = tmp.path;
  const home = join(root, 'home');
  const project = join(root, 'proj');
  const sfHome = join(home, '.sf');
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  execFileSync('git', ['init', '-q', project]);
  const env = { HOME: home, SF_HOME: sfHome, XDG_CONFIG_HOME: join(home, '.config'), CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' };
  const sf = async (args: string[]): Promise<string> => {
    const r = await runSf(args, { cwd: project, env });
    assert.equal(r.code, 0, `sf ${args.join(' ')} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const enabledMarker = 'Marker: REVIEW-BODY-7F3A';
  const disabledMarker = 'Marker: SUMMARIZE-BODY-9C1E';
  try {
    await sf(['skit', 'init', join(root, 'kit')]);
    await appendFile(join(root, 'kit/skills/review/SKILL.md'), `\n${enabledMarker}\n`);
    await appendFile(join(root, 'kit/skills/summarize/SKILL.md'), `\n${disabledMarker}\n`);
    // the user's own host config exists before Forge merges into it
    if (prepare) await prepare({ home, project });
    await sf(['add', 'skit', join(root, 'kit'), '--agent', agents, '--scope', options.scope ?? 'project', '--yes']);
    if (options.disable ?? true) await sf(['skit', 'disable', 'local/kit:summarize', '--agent', agents, '--scope', options.scope ?? 'project']);
  } catch (e) {
    await tmp.cleanup();
    throw e;
  }
  return { root, home, project, sfHome, enabled: 'review', disabled: 'summarize', enabledMarker, disabledMarker, sf, cleanup: tmp.cleanup };
}
