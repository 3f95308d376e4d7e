import { ATTRIBUTES, ATTRIBUTE_GROUPS, EVENTS, METRIC_ALLOWED_DIMENSIONS, SPANS } from '../../schemas/generated/semconv.js';

/**
 * The metadata-only allowlist, derived from the semconv registry (schemas/semconv): every
 * registered attribute is metadata (counts, enums, hashes, ids) except those the registry marks
 * opt-in anywhere (paths, VCS names and revisions, feedback body references) and raw remotes.
 * Anything else — prompt or tool bodies, free-form attributes — is content and is dropped unless
 * the account opted into content collection.
 */

/** Registered attributes that carry content: opt-in in the registry or in any event/span/group. */
function contentAttributes(): Set<string> {
  const out = new Set<string>(['vcs.repository.url.full']); // raw remotes stay local by default (spec, "Repository")
  for (const a of Object.values(ATTRIBUTES)) if (a.requirementLevel === 'opt_in') out.add(a.id);
  for (const g of [...Object.values(EVENTS), ...Object.values(SPANS), ...Object.values(ATTRIBUTE_GROUPS)]) for (const id of g.optIn) out.add(id);
  return out;
}

/**
 * Standard resource attributes every OpenTelemetry SDK sets; metadata, but not part of our
 * registry (semantic-conventions `telemetry.sdk.*`).
 */
const OTEL_SDK_METADATA = ['telemetry.sdk.name', 'telemetry.sdk.language', 'telemetry.sdk.version'];

export const CONTENT_ATTRIBUTES: ReadonlySet<string> = contentAttributes();

export const METADATA_ALLOWLIST: ReadonlySet<string> = new Set([
  ...Object.keys(ATTRIBUTES).filter((id) => !CONTENT_ATTRIBUTES.has(id)),
  ...OTEL_SDK_METADATA,
]);

/** Attributes allowed on metric data points (bounded dimensions only, spec §8 "Metrics"). */
export const METRIC_DIMENSIONS: ReadonlySet<string> = new Set(METRIC_ALLOWED_DIMENSIONS);

/**
 * Attributes whose values are identities and legitimately high-cardinality (events "carry
 * high-cardinality identities needed for diagnosis"): ids, hashes, fingerprints, refs, versions.
 * They are bounded by length, not by the distinct-values-per-key cardinality limit.
 */
const IDENTITY_SUFFIX = /(\.|_)(id|ids|hash|previous_hash|fingerprint|sha|original_sha|key|ref|purl|version)$/;
const IDENTITY_EXTRA = new Set(['agent.skill.name', 'agent.skill.event.sequence']);

const identityCache = new Map<string, boolean>();

export function isIdentityAttribute(key: string): boolean {
  let hit = identityCache.get(key);
  if (hit === undefined) {
    hit = IDENTITY_EXTRA.has(key) || IDENTITY_SUFFIX.test(key);
    // attribute keys are attacker-chosen: memoize only the bounded registry vocabulary
    if (METADATA_ALLOWLIST.has(key)) identityCache.set(key, hit);
  }
  return hit;
}

/**
 * Forge attributes only the hub may set. A client's value is never trusted: the normalizer
 * overwrites these (a client `forge.repository.id` is at most a hint resolved against the
 * account's linked repositories).
 */
export const SERVER_AUTHORITATIVE: ReadonlySet<string> = new Set([
  'forge.account.id',
  'forge.device.id',
  'forge.organization.id',
  'forge.repository.id',
  'forge.repository.resolution',
  'forge.normalizer.version',
  'forge.raw_batch.id',
  'forge.dedup.basis',
]);
