import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scaffoldSkit } from '../core/skit/scaffold.js';
import { startSfHub, type ServerProcess } from './hub-server.js';
import { benchTempDir, cleanEnv, median, ms, ratio, report, sfBin } from './support.js';
import { spawn } from 'node:child_process';

/**
 * Publish + install round trip of a 3-skill SKIT through `sf hub serve`: `sf skit publish` by the
 * author, then `sf add skit owner/name@version` by a user with a fresh HOME, per iteration a new
 * version. Baseline in the same run: the same SKIT packed with `sf skit pack` and installed from
 * the local archive (no hub). Median figures.
 */

const ITERATIONS = 7;

function readme(id: string): string {
  const base = scaffoldSkit({ id })['README.md'];
  return base.replace(
    'capabilities:\n  executables: []',
    `  - name: triage
    path: skills/triage
    default_enabled: true
    trigger_modes: [explicit]
    mutation_scopes: [none]
    capabilities: []
    approval_expectations: []
    expected_outputs: [a triage note]
capabilities:
  executables: []`,
  );
}

async function threeSkillSkit(dir: string, id: string): Promise<void> {
  const files: Record<string, string> = {
    ...scaffoldSkit({ id }),
    'README.md': readme(id),
    'skills/triage/SKILL.md': '---\nname: triage\ndescription: Triage an incoming issue. Use when the user asks to triage.\n---\n\n# Triage\n\nLabel, prioritize, assign.\n',
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

function sf(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [sfBin, ...args], { env: cleanEnv({ NO_COLOR: '1', ...env }), stdio: ['pipe', 'ignore', 'pipe'] });
    let errText = '';
    child.stderr.on('data', (d) => (errText += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - start) / 1e6) : reject(new Error(`sf ${args.join(' ')} exited ${code}: ${errText}`))));
    child.stdin.end(input ?? '');
  });
}

export default {
  name: 'hub round trip: publish + install of a 3-skill SKIT',
  async run(): Promise<void> {
    await access(sfBin).catch(() => {
      throw new Error(`${sfBin} is missing; run \`npm run build\` (npm run bench does)`);
    });
    const tmp = await benchTempDir('sf-bench-roundtrip-');
    let hub: ServerProcess | undefined;
    try {
      const kit = join(tmp.path, 'kit');
      await threeSkillSkit(kit, 'bench/kit');
      const dataDir = join(tmp.path, 'hub');
      const create = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [sfBin, 'hub', 'admin', 'create-user', 'bench', '--data', dataDir, '--json'], { env: cleanEnv() });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => (code === 0 ? resolve((JSON.parse(out) as { token: string }).token) : reject(new Error('create-user failed'))));
      });
      hub = await startSfHub(dataDir, join(tmp.path, 'hub-home'));
      const author = { HOME: join(tmp.path, 'author'), SF_HOME: join(tmp.path, 'author/.sf') };
      await sf(['login', '--hub', hub.url], author, create);
      const times = { publish: [] as number[], install: [] as number[], total: [] as number[], pack: [] as number[], local: [] as number[], localTotal: [] as number[] };
      for (let i = 0; i < ITERATIONS; i++) {
        const user = { HOME: join(tmp.path, `user-${i}`), SF_HOME: join(tmp.path, `user-${i}/.sf`), SF_HUB_URL: hub.url };
        const publish = await sf(['skit', 'publish', kit, '--version', `1.0.${i}`], author);
        const install = await sf(['add', 'skit', `bench/kit@1.0.${i}`, '--agent', 'claude-code', '--scope', 'user', '--yes'], user);
        const archive = join(tmp.path, `kit-${i}.tgz`);
        const local = { HOME: join(tmp.path, `local-${i}`), SF_HOME: join(tmp.path, `local-${i}/.sf`) };
        const pack = await sf(['skit', 'pack', kit, '-o', archive], author);
        const localInstall = await sf(['add', 'skit', archive, '--agent', 'claude-code', '--scope', 'user', '--yes'], local);
        times.publish.push(publish);
        times.install.push(install);
        times.total.push(publish + install);
        times.pack.push(pack);
        times.local.push(localInstall);
        times.localTotal.push(pack + localInstall);
      }
      const list = (v: number[]) => `[${v.map((x) => x.toFixed(0)).join(' ')}]`;
      report([
        ['iterations', `${ITERATIONS} (3-skill SKIT, fresh user HOME each)`],
        ['sf skit publish (median)', `${ms(median(times.publish))}  ${list(times.publish)}`],
        ['sf add skit owner/name@v (median)', `${ms(median(times.install))}  ${list(times.install)}`],
        ['hub round trip (median)', `${ms(median(times.total))}  ${list(times.total)}`],
        ['baseline: pack + add local archive (median)', `${ms(median(times.localTotal))}  ${list(times.localTotal)}`],
        ['ratio hub round trip / local', ratio(median(times.total), median(times.localTotal))],
      ]);
    } finally {
      await hub?.stop();
      await tmp.cleanup();
    }
  },
};
