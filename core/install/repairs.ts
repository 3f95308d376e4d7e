import type { Diagnostic } from '../errors/index.js';

/** The user's own entry in Forge's place: never repaired, not even with --force, and no reason to leave the rest of its target unrepaired. */
export const THEIRS = 'SF_DRIFT_FOREIGN';

/**
 * Findings about what the user (or the host) has, which projecting the installation again cannot
 * change: a same-named skill of theirs, their own config entry, an entry Forge let go of. They
 * neither call for a repair nor are fixed by one.
 */
export const NOT_REPAIRABLE = new Set([THEIRS, 'SF_ADAPTER_NAME_SHADOW', 'SF_ADAPTER_USER_OVERRIDE', 'SF_ADAPTER_CONFIG_DRIFT']);

/**
 * The findings of an adapter's `diagnose` that projecting its request again (setEnablement) would
 * change: none means the target already is what the request and record say, so nothing needs
 * writing (doctor repairs nothing, a rollback has nothing to undo there).
 */
export const repairsAmong = <D extends Diagnostic>(findings: readonly D[]): D[] => findings.filter((d) => !NOT_REPAIRABLE.has(d.code) && d.severity !== 'info');
