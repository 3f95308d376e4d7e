import type { Diagnostic } from '../errors/index.js';
import type { InstallationRecord } from '../library/types.js';
import { hostContext, type Session } from './context.js';
import { crossHostExposure } from './cross-host.js';
import { requestFor, targetShapes } from './requests.js';

/**
 * The warnings an install or an enable/disable owes the user about what it just set up: disabled
 * skills another host can still load (cross-host.ts), and skills of the user's that a target
 * host's by-name switch now also reaches (HostAdapter.nameShadows). Doctor reports both too; here
 * they come when the change is made, not only when someone runs doctor.
 */
export async function changeWarnings(session: Session, inst: InstallationRecord): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  const shapes = targetShapes(session, inst.targets);
  for (const target of inst.targets) {
    const adapter = session.adapters.get(target.agent);
    if (!adapter.nameShadows) continue;
    const ctx = hostContext(session, target.agent, inst.scope, inst.projectRoot);
    out.push(...(await adapter.nameShadows(requestFor(inst, target.agent, session.paths.store, shapes), target, ctx)));
  }
  return [...out, ...(await crossHostExposure(session, inst))];
}
