import type { ProjectionRecord, Scope } from '../install/host-adapter.js';

import type * as Generated from '../../schemas/generated/install-state.js';

/**
 * Library record shapes, generated from schemas/json/install-state.schema.json
 * (schemas/generated/install-state.ts). Two are narrowed here: a target is exactly the HostAdapter
 * port's ProjectionRecord (the generated type allows any extra config-edit fields), and an
 * intent carries the typed plan of core/install.
 */

export type InstallScope = Scope;
export type ReleaseRef = Generated.ReleaseRef;
export type SkillRecord = Generated.SkillRecord;
/** skill name -> agent id or '*' -> enabled */
export type EnablementOverrides = Generated.EnablementOverrides;
export type SourceRecord = Generated.SourceRecord;
export type InventoryEvent = Generated.InventoryEvent;
export type InventoryAction = InventoryEvent['action'];
export type IntentOp = Generated.IntentRecord['op'];
export type IntentPhase = Generated.IntentRecord['phase'];

/** What one adapter put where; identical to the HostAdapter port's ProjectionRecord. */
export type TargetRecord = ProjectionRecord;

export type InstallationRecord = Omit<Generated.InstallationRecord, 'targets'> & { targets: TargetRecord[] };

export interface IntentRecord<TPlan = unknown> extends Omit<Generated.IntentRecord, 'plan'> {
  plan?: TPlan;
}

/** Where an installation lives: `user`, or `project:<absolute root>`. */
export function scopeKey(scope: InstallScope, projectRoot?: string): string {
  return scope === 'user' ? 'user' : `project:${projectRoot ?? ''}`;
}

/** The scope key of a record. */
export function recordScopeKey(record: Pick<InstallationRecord, 'scope' | 'projectRoot'>): string {
  return scopeKey(record.scope, record.projectRoot);
}
