import type { AgentSkillLibraryResolution } from '../../../schemas/generated/semconv.js';
import type { SkillResolution } from './skill-index.js';

/**
 * The skill identity attributes an event carries after library resolution. A resolved skill
 * gets its Forge SKIT id, release, bundle hash, skill id and content hash; an unresolved one gets
 * `agent.skill.id = <resolution>:<name>` and no package identity, so it is never mistaken for a
 * Forge skill.
 */
export interface SkillIdentity {
  'agent.skill.id': string;
  'agent.skill.name'?: string;
  'agent.skill.package.id'?: string;
  'agent.skill.content.hash'?: string;
  'agent.skill.source.type'?: 'forge' | 'git' | 'url' | 'archive' | 'local' | 'plugin' | 'unknown';
  'agent.skill.source.ref'?: string;
  'artifact.version'?: string;
  'artifact.hash'?: string;
  'agent.skill.library.resolution': AgentSkillLibraryResolution;
  'agent.skill.library.enabled'?: false;
}

/** Identity attributes of a resolution; `hostPlugin` marks host plugin/bundled skills. */
export function identityOf(res: SkillResolution, name: string | undefined, hostPlugin = false): SkillIdentity {
  const e = res.entry;
  if (e) {
    return {
      'agent.skill.id': e.skillId,
      'agent.skill.name': e.name,
      'agent.skill.package.id': e.skitId,
      'agent.skill.content.hash': e.contentHash,
      'agent.skill.source.type': e.sourceType,
      ...(e.sourceRef ? { 'agent.skill.source.ref': e.sourceRef } : {}),
      ...(e.release ? { 'artifact.version': e.release } : {}),
      'artifact.hash': e.bundleHash,
      'agent.skill.library.resolution': res.resolution,
      // only the exception is said: the skill ran although the library has it disabled for this agent
      ...(e.enabled ? {} : { 'agent.skill.library.enabled': false as const }),
    };
  }
  return {
    'agent.skill.id': `${res.resolution}:${name ?? 'unknown'}`,
    ...(name ? { 'agent.skill.name': name } : {}),
    ...(hostPlugin ? { 'agent.skill.source.type': 'plugin' as const } : {}),
    'agent.skill.library.resolution': res.resolution,
  };
}
