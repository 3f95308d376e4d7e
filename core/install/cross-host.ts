import type { Diagnostic } from '../errors/index.js';
import type { InstallationRecord } from '../library/types.js';
import { sourceOfRelease } from '../sources/origin.js';
import { hostContext, type Session } from './context.js';
import { isEnabled } from './enablement.js';

/**
 * Disabled skills that another host on this machine can still load: a host with a native switch
 * (Claude Code, Codex) keeps a disabled skill in its directory, switched off only for itself, and
 * a host that also reads that directory (OpenCode reads .claude/skills and .agents/skills) but is
 * not a target of the installation has no Forge entry to deny it. Warnings, one per skill and
 * host; the fix is to install for that host too.
 */
export async function crossHostExposure(session: Session, inst: InstallationRecord): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  const targeted = new Set(inst.targets.map((t) => t.agent));
  for (const adapter of session.adapters.all()) {
    if (!adapter.alsoReads || targeted.has(adapter.id)) continue;
    const ctx = hostContext(session, adapter.id, inst.scope, inst.projectRoot);
    const roots = new Set(adapter.alsoReads(ctx));
    const exposed = inst.targets.flatMap((t) =>
      roots.has(t.skillRoot)
        ? t.paths.flatMap((p) => {
            const skill = inst.skills.find((s) => s.id === p.skillId);
            return skill && !isEnabled(inst.enablement, skill, t.agent) ? [{ skill, path: p.path, agent: t.agent }] : [];
          })
        : [],
    );
    if (exposed.length === 0 || !(await adapter.detect(ctx)).present) continue;
    for (const e of exposed) {
      out.push({
        code: 'SF_ADAPTER_EXPOSED_TO_HOST',
        severity: 'warning',
        file: e.path,
        message: `${e.skill.id} is disabled for ${e.agent}, but ${adapter.displayName} also loads skills from ${e.path.slice(0, e.path.length - e.skill.name.length - 1)} and has no Forge entry that turns it off`,
        hint: `install ${inst.skitId} for ${adapter.id} too (sf add skit ${sourceOfRelease(inst.source, inst.release)} --agent ${adapter.id}${inst.scope === 'user' ? ' --scope user' : ''}), so Forge denies the skill there`,
      });
    }
  }
  return out;
}
