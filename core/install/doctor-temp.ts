import type { Library } from '../library/db.js';
import type { Session } from './context.js';
import type { DoctorFinding } from './doctor.js';
import { configTempLeftovers, removeConfigTemps } from './recover-config-temps.js';

/** The doctor finding for the temp copies of host configs that killed writes left; with `fix` they are deleted. */
export async function checkConfigTemps(session: Pick<Session, 'paths'>, lib: Library, fix: boolean): Promise<DoctorFinding[]> {
  const temps = await configTempLeftovers(session, lib);
  if (temps.length === 0) return [];
  const finding: DoctorFinding = {
    code: 'SF_DRIFT_CONFIG_TEMP', severity: 'warning', file: temps[0],
    message: `interrupted config writes left ${temps.length} temporary file${temps.length === 1 ? '' : 's'} next to config files (copies or lock files): ${temps.join(', ')}`,
    hint: 'run `sf skit doctor --fix` to delete them (the config files themselves are complete)',
  };
  if (fix) {
    await removeConfigTemps(session, lib);
    finding.fixed = true;
  }
  return [finding];
}
