import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, writeTree } from '../../test-support/index.js';
import { installSandbox, kitTree, outbox, rootContents, type InstallSandbox, type ListedRecord } from '../../test-support/skit-install.js';

/**
 * Kills `sf` with SIGKILL (SF_CRASH_AT crash points) at every step of install, update and remove,
 * then checks that the library and the agent directories hold the old or the new state (each
 * skill directory whole, no dangling link), and that `sf skit doctor --fix` leaves a clean state
 * that is entirely the old or entirely the new one.
 */

const AGENTS = ['windsurf', 'cline'];
const ROOTS = { windsurf: '.windsurf/skills', cline: '.agents/skills' };

interface State {
  records: unknown[];
  roots: Record<string, Record<string, string>>;
}

const normalize = (records: ListedRecord[]) => records.map((r) => ({ ...r, installedAt: undefined, updatedAt: undefined }));

async function snapshot(sb: InstallSandbox): Promise<State> {
  const roots: State['roots'] = {};
  for (const [agent, rel] of Object.entries(ROOTS)) roots[agent] = await rootContents(join(sb.project, rel));
  return { records: normalize(await sb.list()), roots };
}

interface Scenario {
  op: string;
  /** prepares the "old" state in a fresh sandbox */
  setup(sb: InstallSandbox): Promise<void>;
  command: string[];
  steps: string[];
}

const installAll = async (sb: InstallSandbox) => {
  const r = await sb.sf(['add', 'skit', sb.source, '--agent', AGENTS.join(','), '--yes']);
  assert.equal(r.code, 0, r.stderr);
};

const SCENARIOS: Scenario[] = [
  {
    op: 'install',
    setup: async () => undefined,
    command: ['add', 'skit', '../kit', '--agent', AGENTS.join(','), '--yes'],
    steps: ['install:after-intent', 'install:after-store', 'project:after-skill', 'install:after-project', 'install:after-committing', 'install:after-outbox', 'install:after-commit'],
  },
  {
    op: 'update',
    setup: async (sb) => {
      await installAll(sb);
      await rm(join(sb.source, 'skills', 'lint'), { recursive: true });
      await writeTree(sb.source, kitTree('two', ['review', 'summarize']));
    },
    command: ['skit', 'update', 'acme/kit'],
    steps: ['update:after-intent', 'update:after-store', 'project:after-skill', 'update:after-project', 'update:after-unproject', 'update:after-committing', 'update:after-outbox', 'update:after-commit'],
  },
  {
    op: 'remove',
    setup: installAll,
    command: ['skit', 'remove', 'acme/kit'],
    steps: ['remove:after-intent', 'unproject:after-skill', 'remove:after-unproject', 'remove:after-committing', 'remove:after-outbox', 'remove:after-commit'],
  },
];

describe('crash safety: SIGKILL at every step of install, update and remove', function () {
  this.timeout(60_000);
  let base: Awaited<ReturnType<typeof tempDir>>;
  const caseDir = () => join(base.path, 'case');
  const restore = (name: string) => {
    execFileSync('rm', ['-rf', caseDir()]);
    execFileSync('cp', ['-a', join(base.path, `tpl-${name}`), caseDir()]);
  };
  const sandbox = () => installSandbox(undefined, caseDir());
  const expected = new Map<string, { old: State; new: State; events: number }>();

  before(async function () {
    this.timeout(120_000);
    base = await tempDir('sf-crash-');
    for (const s of SCENARIOS) {
      const sb = await installSandbox(undefined, caseDir());
      await s.setup(sb);
      execFileSync('cp', ['-a', caseDir(), join(base.path, `tpl-${s.op}`)]);
      const old = await snapshot(sb);
      const before = (await outbox(sb.sfHome)).length;
      const r = await sb.sf(s.command);
      assert.equal(r.code, 0, r.stderr);
      expected.set(s.op, { old, new: await snapshot(sb), events: (await outbox(sb.sfHome)).length - before });
      execFileSync('rm', ['-rf', caseDir()]);
    }
  });
  after(() => base.cleanup());

  for (const s of SCENARIOS) {
    for (const step of s.steps) {
      it(`${s.op}: killed at ${step}`, async () => {
        restore(s.op);
        const sb = await sandbox();
        const want = expected.get(s.op)!;
        assert.notDeepEqual(want.old, want.new);
        const eventsBefore = (await outbox(sb.sfHome)).length;

        const crashed = await sb.sf(s.command, { env: { SF_CRASH_AT: step } });
        assert.equal(crashed.code, -1, `the crash point ${step} was not reached: ${crashed.stdout} ${crashed.stderr}`);

        // right after the crash: the library holds the old or the new records, and every skill
        // directory is the old or the new one, whole, with no dangling link
        const mid = await snapshot(sb);
        assert.ok([JSON.stringify(want.old.records), JSON.stringify(want.new.records)].includes(JSON.stringify(mid.records)), 'library is old or new');
        for (const agent of AGENTS) {
          for (const [name, target] of Object.entries(mid.roots[agent])) {
            assert.ok(target === want.old.roots[agent][name] || target === want.new.roots[agent][name], `${agent}/${name} -> ${target} is neither old nor new`);
            await stat(join(sb.project, ROOTS[agent as keyof typeof ROOTS], name));
          }
        }

        const fix = await sb.sf(['skit', 'doctor', '--fix']);
        assert.equal(fix.code, 0, fix.stdout + fix.stderr);
        const check = await sb.sf(['skit', 'doctor', '--json']);
        assert.equal(check.code, 0, check.stdout);
        assert.deepEqual((JSON.parse(check.stdout) as { findings: unknown[] }).findings, []);

        const end = await snapshot(sb);
        const which = JSON.stringify(end) === JSON.stringify(want.new) ? 'new' : JSON.stringify(end) === JSON.stringify(want.old) ? 'old' : 'mixed';
        assert.notEqual(which, 'mixed', `after doctor --fix the state is mixed: ${JSON.stringify(end)}`);
        const events = await outbox(sb.sfHome);
        assert.equal(new Set(events.map((e) => e.event_id)).size, events.length, 'no event twice');
        assert.equal(events.length - eventsBefore, which === 'new' ? want.events : 0, `events of the ${which} state`);
        // nothing unreferenced or half-built is left in the store
        const store = await import('node:fs/promises').then((fs) => fs.readdir(join(sb.sfHome, 'store')).catch(() => [] as string[]));
        const referenced = (await sb.list()).map((r) => r.bundleHash.slice(7));
        assert.deepEqual(store.filter((n) => n !== '.staging').sort(), [...new Set(referenced)].sort());
      });
    }
  }
});
