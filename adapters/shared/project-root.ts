import { SfError } from '../../core/errors/index.js';
import { projectRootGone } from '../../core/install/context.js';
import { shellArg } from '../../core/install/find-installation.js';
import type { HostContext } from '../../core/install/host-adapter.js';

/**
 * Refuses to project into a project whose root is gone (deleted, moved, a removed git worktree):
 * making the skill directory would create the project directory again, and a later
 * `git worktree add` or move back would then find it in the way. Skill roots inside a project
 * that exists are created as usual.
 */
export function assertProjectThere(ctx: HostContext, skitId: string): void {
  if (ctx.scope !== 'project' || !ctx.projectRoot || !projectRootGone(ctx.projectRoot)) return;
  throw new SfError('SF_E_NOT_FOUND', `the project ${ctx.projectRoot} is gone (deleted or moved); Forge does not create a project directory`, {
    location: { file: ctx.projectRoot },
    hint: `\`sf skit remove ${skitId || '<id>'} --project ${shellArg(ctx.projectRoot)}\` forgets the installation there; if the project moved, install again from its new place`,
  });
}
