import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeExportResponse, decodeOtlpRequest, encodeOtlpRequest, type OtlpSignal } from '../../core/telemetry/otlp/index.js';
import { fixturesDir } from '../../test-support/index.js';
import { checkpointLookup, gitAiCheckpointOf, gitAiOutcomeOf } from '../projections/facts.js';
import type { TelemetryFixture, TelemetryUser } from './telemetry-fixture.js';

/**
 * Golden OTLP fixtures (fixtures/otlp/<name>.otlp.json): account setup plus deliveries written as
 * OTLP/JSON; a delivery marked `protobuf` is re-encoded as protobuf before it is sent.
 */

export interface OtlpDelivery {
  signal: OtlpSignal;
  encoding: 'json' | 'protobuf';
  gzip?: boolean;
  body: Record<string, unknown>;
}

export interface OtlpFixtureFile {
  description: string;
  account: { contentCollection: boolean; repositories: { name: string; fingerprints: string[] }[] };
  deliveries: OtlpDelivery[];
}

export interface DeliveryResponse {
  status: number;
  contentType: string | null;
  partialSuccess: { rejected: number; errorMessage?: string } | null;
}

/** The hub's clock in golden runs: the day after the fixtures' events. */
export const GOLDEN_RECEIPT_MS = Date.UTC(2026, 7, 10, 12, 0, 0);

export const GOLDEN_FIXTURES = [
  'normal-activation', 'load-failure', 'multiple-active-skills', 'jfdi-unsafe-autonomy', 'maintainability-overreach',
  'user-correction', 'uninstall', 'offline-retry', 'duplicate-delivery', 'redaction', 'git-ai-checkpoint', 'policy-blocked-load',
] as const;

export async function loadOtlpFixture(name: string): Promise<OtlpFixtureFile> {
  return JSON.parse(await readFile(join(fixturesDir, 'otlp', `${name}.otlp.json`), 'utf8')) as OtlpFixtureFile;
}

/** The bytes of a delivery in its encoding (protobuf deliveries are re-encoded from their OTLP/JSON). */
export async function deliveryBytes(d: OtlpDelivery): Promise<Uint8Array> {
  const json = Buffer.from(JSON.stringify(d.body));
  if (d.encoding === 'json') return json;
  return encodeOtlpRequest(await decodeOtlpRequest(d.signal, json, 'json'), 'protobuf');
}

/** Sets the account up as the fixture says and returns its repository ids by name. */
export async function setUpAccount(f: TelemetryFixture, user: TelemetryUser, fx: OtlpFixtureFile): Promise<Map<string, string>> {
  if (fx.account.contentCollection) {
    const res = await f.app.request(`/api/v1/telemetry/accounts/${user.login}/settings`, {
      method: 'PUT',
      body: JSON.stringify({ contentCollection: true }),
      headers: { 'content-type': 'application/json', ...user.manage },
    });
    if (res.status !== 200) throw new Error(`settings: ${res.status}`);
  }
  const repos = new Map<string, string>();
  for (const r of fx.account.repositories) repos.set(await f.linkRepository(user, r.name, r.fingerprints), r.name);
  return repos;
}

/** POSTs every delivery with the user's device credential and records the OTLP responses. */
export async function deliver(f: TelemetryFixture, user: TelemetryUser, fx: OtlpFixtureFile): Promise<DeliveryResponse[]> {
  const out: DeliveryResponse[] = [];
  for (const d of fx.deliveries) {
    const res = await f.post(d.signal, await deliveryBytes(d), { auth: user.device, encoding: d.encoding, gzip: d.gzip });
    const body = new Uint8Array(await res.arrayBuffer());
    const partial = res.status === 200 ? await decodeExportResponse(d.signal, d.encoding, body) : undefined;
    out.push({ status: res.status, contentType: res.headers.get('content-type'), partialSuccess: partial ?? null });
  }
  return out;
}

/**
 * Delivers every golden fixture to `user` (its repositories linked from the first fixture), checks
 * each delivery was accepted and waits until all are normalized; returns repository id -> name.
 */
export async function deliverGoldenFixtures(f: TelemetryFixture, user: TelemetryUser): Promise<Map<string, string>> {
  const repos = new Map<string, string>();
  for (const name of GOLDEN_FIXTURES) {
    const fx = await loadOtlpFixture(name);
    if (repos.size === 0) for (const [id, n] of await setUpAccount(f, user, fx)) repos.set(id, n);
    for (const r of await deliver(f, user, fx)) assert.equal(r.status, 200);
  }
  await f.telemetry.drain();
  return repos;
}

export interface ProjectionSnapshot {
  observation_events: unknown[];
  skill_activations: unknown[];
  activation_actions: unknown[];
  change_outcomes: unknown[];
  git_ai_checkpoints: unknown[];
  git_ai_attribution_outcomes: unknown[];
  skill_feedback_incidents: unknown[];
  usage_rollups: unknown[];
}

const byKey = (key: (r: Record<string, unknown>) => string) => (a: unknown, b: unknown) => {
  const x = key(a as Record<string, unknown>);
  const y = key(b as Record<string, unknown>);
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * Every projection row of the live generation, sorted, with the run-specific identities replaced
 * by placeholders: `<account>`, `<device>`, `<repo:NAME>`, `<batch:N>` (N = receipt order).
 */
export function projectionSnapshot(f: TelemetryFixture, user: TelemetryUser, repos: Map<string, string>): ProjectionSnapshot {
  const reader = f.telemetry.reader();
  const names = new Map<string, string>([[user.id, '<account>']]);
  for (const [id, name] of repos) names.set(id, `<repo:${name}>`);
  [...f.storage.telemetry.rawBatches.listByReceipt()].filter((b) => b.accountId === user.id).forEach((b, i) => {
    names.set(b.id, `<batch:${i}>`);
    names.set(b.deviceId, '<device>');
  });
  const scrub = (rows: Iterable<unknown>) => JSON.parse(JSON.stringify([...rows], (_k, v) => (typeof v === 'string' && names.has(v) ? names.get(v) : v))) as unknown[];
  const id = (r: Record<string, unknown>) => String(r.eventId ?? r.activationId);
  // Git AI rows are derived from their event rows on read, joined by checkpoint id (projections/facts.ts)
  const events = [...reader.allEvents()];
  const present = <T>(rows: (T | undefined)[]): T[] => rows.filter((r): r is T => r !== undefined);
  return {
    observation_events: scrub(reader.allEvents()).sort(byKey(id)),
    skill_activations: scrub(reader.allActivations()).sort(byKey(id)),
    activation_actions: scrub(reader.allActions()).sort(byKey(id)),
    change_outcomes: scrub(reader.allChanges()).sort(byKey(id)),
    git_ai_checkpoints: scrub(present(events.map(gitAiCheckpointOf))).sort(byKey(id)),
    git_ai_attribution_outcomes: scrub(present(events.map((e) => gitAiOutcomeOf(e, checkpointLookup(reader))))).sort(byKey(id)),
    skill_feedback_incidents: scrub(reader.allFeedback()).sort(byKey(id)),
    usage_rollups: scrub(reader.allRollups()).sort(byKey((r) => JSON.stringify([r.day, r.packageId, r.skillId, r.version, r.host, r.triggerType]))),
  };
}
