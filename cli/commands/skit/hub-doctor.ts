import type { Diagnostic } from '../../../core/errors/index.js';

/** A doctor finding about one installation (the shape of core/install/doctor.ts findings). */
export type HubFinding = Diagnostic & { skitId: string; scope: string };

/**
 * `sf skit doctor`'s hub check: every installation that came from a Forge hub is compared with the
 * hub's record of its release (bundle and per-skill hashes, quarantine, deprecation).
 */
export async function hubFindings(): Promise<HubFinding[]> {
  const { Library } = await import('../../../core/library/db.js');
  const { sfPaths } = await import('../../../core/library/paths.js');
  const { recordScopeKey } = await import('../../../core/library/types.js');
  const { knownHubs, hubSourceOf, verifyAgainstHub } = await import('../../../core/hub-client/index.js');
  const lib = await Library.open(sfPaths(process.env), { create: false, readOnly: true });
  const installs = lib ? lib.listInstallations().filter((i) => hubSourceOf(i)) : [];
  await lib?.close();
  if (installs.length === 0) return [];
  const hubs = await knownHubs(process.env);
  const findings: HubFinding[] = [];
  for (const inst of installs) {
    for (const d of await verifyAgainstHub(inst, hubs)) findings.push({ ...d, skitId: inst.skitId, scope: recordScopeKey(inst) });
  }
  return findings;
}
