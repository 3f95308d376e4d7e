import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { benchTempDir, cleanEnv, median, ms, ratio, report, sfBin } from './support.js';

/**
 * With 200 SKITs installed (two skills each, every fourth with a skill off by default), half in
 * the project and half for the user, each for Claude Code, Codex, OpenCode, Cursor and Windsurf:
 * every host's skill roots hold hundreds of entries, the name-shadow checks of Claude Code and
 * OpenCode scan them, and each host config holds hundreds of Forge entries.
 * `sf skit list` (target < 150 ms median) and `sf skit doctor` (target < 1 s median), against the
 * start-up of `node -e 0` measured in the same run; and `sf skit update --all` with nothing to
 * update, which reads the library once per pass (it read and indexed every installation again for
 * each SKIT: quadratic).
 */

const AGENTS = ['claude-code', 'codex', 'opencode', 'cursor', 'windsurf'];

const SKITS = 200;

async function writeSkit(root: string, i: number): Promise<void> {
  const names = [`s${i}-alpha`, `s${i}-beta`];
  const entries = names.map((s, k) => `  - name: ${s}\n    path: skills/${s}\n    default_enabled: ${k === 1 && i % 4 === 0 ? 'false' : 'true'}\n`).join('');
  const files: Record<string, string> = { 'README.md': `---\nskit: 1\nid: bench/kit-${i}\nskills:\n${entries}---\n\n# kit ${i}\n` };
  for (const s of names) files[`skills/${s}/SKILL.md`] = `---\nname: ${s}\ndescription: Skill ${s} of the library benchmark. Use it when asked for ${s}.\n---\n\n# ${s}\n`;
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), text);
  }
}

function timed(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd, env: cleanEnv({ NO_COLOR: '1', ...env }), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, code: code ?? -1, stderr }));
  });
}

async function medianOf(runs: number, args: string[], cwd: string, env: NodeJS.ProcessEnv, ok = (code: number) => code === 0): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await timed(args, cwd, env);
    if (!ok(r.code)) throw new Error(`${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    times.push(r.ms);
  }
  return median(times);
}

export default {
  name: 'library: sf skit list, doctor and update --all with 200 SKITs installed',
  async run(): Promise<void> {
    const tmp = await benchTempDir('sf-bench-library-');
    try {
      const home = join(tmp.path, 'home');
      const project = join(tmp.path, 'proj');
      await mkdir(join(project, '.git'), { recursive: true });
      const env = { HOME: home, SF_HOME: join(home, '.sf'), XDG_CONFIG_HOME: join(home, '.config') };
      // install in-process through the same core code path the CLI uses (200 CLI runs would take minutes)
      const { sessionFrom } = await import('../core/install/context.js');
      const { installSkit } = await import('../core/install/install-op.js');
      const { getAdapter, allAdapters } = await import('../adapters/index.js');
      const session = sessionFrom({ ...process.env, ...env }, project, { get: getAdapter, all: allAdapters });
      const started = Date.now();
      for (let i = 0; i < SKITS; i++) {
        const src = join(tmp.path, 'src', `kit-${i}`);
        await writeSkit(src, i);
        await installSkit(session, { source: src, agents: AGENTS.map((a) => getAdapter(a)), scope: i % 2 === 0 ? 'project' : 'user' });
      }
      const setup = Date.now() - started;

      const baseline = await medianOf(11, ['-e', '0'], project, env);
      const list = await medianOf(11, [sfBin, 'skit', 'list'], project, env);
      const listJson = await medianOf(5, [sfBin, 'skit', 'list', '--json'], project, env);
      const doctor = await medianOf(7, [sfBin, 'skit', 'doctor'], project, env);
      const update = await medianOf(3, [sfBin, 'skit', 'update', '--all'], project, env);
      report([
        [`setup: ${SKITS} installs in-process (${AGENTS.length} agents, both scopes)`, `${(setup / 1000).toFixed(1)} s`],
        ['node -e 0 (baseline, median)', ms(baseline)],
        ['sf skit list (median)', `${ms(list)} (target < 150 ms: ${list < 150 ? 'met' : 'NOT met'}); ${ratio(list, baseline)} node start-up`],
        ['sf skit list --json (median)', `${ms(listJson)}; ${ratio(listJson, baseline)} node start-up`],
        ['sf skit doctor (median)', `${ms(doctor)} (target < 1000 ms: ${doctor < 1000 ? 'met' : 'NOT met'}); ${ratio(doctor, baseline)} node start-up`],
        ['sf skit update --all, nothing to update (median)', `${ms(update)}; ${(update / SKITS).toFixed(1)} ms per SKIT`],
      ]);
    } finally {
      await tmp.cleanup();
    }
  },
};
