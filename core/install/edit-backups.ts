import { mkdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncDirsSync, mkdirForDurable } from '../fs/atomic.js';
import { startNewFilesDurable } from '../fs/new-files.js';
import { walkTree } from '../skit/tree.js';
import type { Session } from './context.js';
import type { Plan } from './plan-types.js';

/**
 * Before a forced install or update replaces installed skill directories that were edited
 * (Plan.overwrites), copies each one, as it is, to $SF_HOME/backups/edits/<id>.<time>/<agent>/<skill>/
 * (durably: the replacement is), and adds a note saying where. Runs under the claim, once the plan
 * is confirmed and before it is applied (a declined prompt leaves no copy); nothing deletes
 * these copies.
 */
export async function backUpEdits(session: Session, plan: Plan): Promise<void> {
  if (!plan.overwrites?.length) return;
  const stamp = session.now().replace(/[:.]/g, '-');
  const dir = join(session.paths.backups, 'edits', `${plan.skitId.replace(/\//g, '-')}.${stamp}`);
  // every directory that gains a name: the new ones' parents, and each one holding a copied entry
  const dirs = new Set<string>(mkdirForDurable(dir));
  const made = (path: string) => {
    for (let d = dirname(path); d.startsWith(dir); d = dirname(d)) dirs.add(d);
  };
  for (const edited of plan.overwrites) {
    const from = realpathSync(edited.path);
    const to = join(dir, edited.agent, basename(edited.path));
    const tree = await walkTree(from, { ignore: () => false });
    await startNewFilesDurable(tree.files.map((f) => ({ path: join(to, f.path), bytes: readFileSync(f.abs), mode: f.mode === 'exec' ? 0o755 : 0o644 })));
    tree.files.forEach((f) => made(join(to, f.path)));
    // links inside the skill directory are copied as links; special files are no skill's edits
    for (const odd of tree.oddities.filter((o) => o.kind === 'symlink')) {
      mkdirSync(dirname(join(to, odd.path)), { recursive: true });
      symlinkSync(readlinkSync(join(from, odd.path)), join(to, odd.path));
      made(join(to, odd.path));
    }
  }
  fsyncDirsSync(dirs);
  const what = plan.overwrites.map((e) => `${e.path} (${e.files.slice(0, 3).join(', ')}${e.files.length > 3 ? ', ...' : ''})`).join('; ');
  plan.notes.push(`${plan.skitId}: --force replaced skill directories with local edits; they were copied first to ${dir}: ${what}`);
}
