import { dirname, isAbsolute, join, resolve } from 'node:path';
import { SfError, type Diagnostic } from '../../core/errors/index.js';
import type { ProjectionRecord, ProjectionRequest } from '../../core/install/host-adapter.js';
import { isInsideDir } from '../shared/fs-ops.js';
import { pathState } from '../shared/project.js';
import { sameTree } from '../shared/same-tree.js';

/** A skill name used as a directory name must be one plain path segment. */
export function skillDirName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) {
    throw new SfError('SF_E_UNSAFE_PATH', `skill name "${name}" cannot be used as a directory name`, { hint: 'skill names are lowercase letters, digits and hyphens' });
  }
  return name;
}

export interface DestState {
  skillId: string;
  dest: string;
  /** the path already shows a Forge projection (a link into the store, or a recorded/identical copy) */
  forge: boolean;
}

/**
 * Where each skill of `req` goes in `skillRoot`, and whether what is there now is Forge's: absent,
 * a link into the store, a copy the record lists, or a directory identical to the source. Anything
 * else (the user's own skill, a link elsewhere, a file) is a name collision: SF_E_NAME_COLLISION is
 * thrown before anything is written, with one diagnostic per skill, so no disabled child is ever
 * exposed through someone else's directory.
 */
export async function checkDestinations(req: ProjectionRequest, skillRoot: string, storeRoot: string, record?: ProjectionRecord): Promise<DestState[]> {
  const out: DestState[] = [];
  const collisions: Diagnostic[] = [];
  for (const skill of req.skills) {
    const dest = join(skillRoot, skillDirName(skill.name));
    const state = await pathState(dest);
    let forge = false;
    let foreign = false;
    if (state.kind === 'symlink') {
      const target = isAbsolute(state.target) ? state.target : resolve(dirname(dest), state.target);
      forge = isInsideDir(target, storeRoot);
      foreign = !forge;
    } else if (state.kind === 'dir') {
      forge = Boolean(record?.paths.some((p) => p.path === dest && p.mode === 'copy')) || (await sameTree(dest, skill.sourceDir));
      foreign = !forge;
    } else if (state.kind === 'other') {
      foreign = true;
    }
    if (foreign) {
      collisions.push({ code: 'SF_ADAPTER_NAME_COLLISION', severity: 'error', file: dest, errorCode: 'SF_E_NAME_COLLISION',
        message: `${dest} already exists and is not managed by Forge, so ${skill.skillId} cannot be installed there`,
        hint: `Move or rename your own "${skill.name}" skill directory, then run the command again; nothing was changed.` });
    }
    out.push({ skillId: skill.skillId, dest, forge });
  }
  if (collisions.length > 0) {
    throw new SfError('SF_E_NAME_COLLISION', collisions.map((d) => d.message).join('\n'), {
      location: { file: collisions[0].file }, hint: collisions[0].hint, data: { diagnostics: collisions },
    });
  }
  return out;
}
