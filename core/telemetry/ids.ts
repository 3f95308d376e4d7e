import { createHash, randomBytes } from 'node:crypto';
import { SfError } from '../errors/index.js';

/**
 * Identifiers of normalized telemetry. Event and activation ids are derived deterministically from
 * the identity of the native record they come from, so a host that re-sends a batch produces the
 * same ids (the hub deduplicates on agent.skill.event.id). Trace ids are either the host's real
 * W3C ids or derived from session/turn identity; a Git AI `t_` checkpoint id never becomes, or
 * seeds, a trace id (git-ai.md §2).
 */

/** Git AI ids: `s_<hex>` session, `t_<hex>` checkpoint ("trace"), `h_<hex>` human, or `s_..::t_..`. */
const GIT_AI_ID = /(^|::)[sth]_[0-9a-f]{6,}($|::)/i;

/** True when `value` looks like a Git AI session/checkpoint/human id or attestation key. */
export function isGitAiId(value: string): boolean {
  return GIT_AI_ID.test(value);
}

function digest(parts: readonly (string | number | undefined)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${p === undefined ? '\u0001' : String(p)}\u0000`);
  return h.digest('hex');
}

/** A stable id `<prefix>_<32 hex>` derived from `parts` (same parts, same id). */
export function stableId(prefix: string, parts: readonly (string | number | undefined)[]): string {
  return `${prefix}_${digest([prefix, ...parts]).slice(0, 32)}`;
}

/** agent.skill.event.id of a normalized event derived from one native record. */
export const eventIdFor = (parts: readonly (string | number | undefined)[]): string => stableId('evt', parts);

/** agent.skill.activation.id, assigned at the earliest exact adapter boundary. */
export const activationIdFor = (parts: readonly (string | number | undefined)[]): string => stableId('act', parts);

const TRACE_ID = /^(?!0{32}$)[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16}$)[0-9a-f]{16}$/;

/** True for a valid W3C trace id (32 lowercase hex, not all zero). */
export const isTraceId = (v: unknown): v is string => typeof v === 'string' && TRACE_ID.test(v);
/** True for a valid span id (16 lowercase hex, not all zero). */
export const isSpanId = (v: unknown): v is string => typeof v === 'string' && SPAN_ID.test(v);

/**
 * A trace id derived from session/turn identity, for hosts that export no trace context. Refuses
 * seeds that contain a Git AI id: a checkpoint id must never determine a trace id.
 */
export function deriveTraceId(seed: readonly (string | number | undefined)[]): string {
  for (const part of seed) {
    if (typeof part === 'string' && isGitAiId(part)) {
      throw new SfError('SF_E_TELEMETRY_EVENT', 'a Git AI id cannot seed an OpenTelemetry trace id', {
        hint: 'link Git AI checkpoints through git.ai.* attributes and span links, never trace ids',
      });
    }
  }
  const hex = digest(['trace', ...seed]).slice(0, 32);
  return /^0+$/.test(hex) ? `${hex.slice(0, 31)}1` : hex;
}

/** A span id derived from a stable identity (e.g. an activation id), so retries reproduce it. */
export function deriveSpanId(seed: readonly (string | number | undefined)[]): string {
  const hex = digest(['span', ...seed]).slice(0, 16);
  return /^0+$/.test(hex) ? `${hex.slice(0, 15)}1` : hex;
}

/**
 * Accepts a host-supplied trace id only when it is a real W3C trace id; anything else, including a
 * Git AI `t_` id in any encoding, yields undefined.
 */
export function hostTraceId(value: unknown): string | undefined {
  return isTraceId(value) ? value : undefined;
}

/** A random trace id (for spans Forge starts itself without any host identity). */
export function randomTraceId(): string {
  return randomBytes(16).toString('hex');
}
