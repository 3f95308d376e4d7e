import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { SfError } from '../../../core/errors/index.js';
import { latestVersion } from '../../../core/skit/semver.js';
import { compareCodeUnits } from '../../../core/skit/tree.js';
import { mkdirDurableSync } from '../../../core/fs/atomic.js';
import { assertLocalDataDir, MOVE_HUB_DATA } from '../../../core/fs/filesystem-kind.js';
import type {
  AccountStore, HubStorage, LatestSummary, OrgRecord, OrgRole, OwnerRef, RegistryStore, ReleaseRecord, SkitRecord, TokenRecord, TokenStore, UserRecord,
} from '../ports.js';
import { BlobDir } from './blob-dir.js';
import { openEmbeddedTelemetry } from './telemetry/index.js';

const now = () => new Date().toISOString();

class LmdbAccounts implements AccountStore {
  constructor(
    private readonly root: RootDatabase,
    private readonly users: Database<UserRecord, string>,
    private readonly orgs: Database<OrgRecord, string>,
    private readonly owners: Database<OwnerRef, string>,
  ) {}

  private claimOwner(ref: OwnerRef): void {
    const key = ref.login.toLowerCase();
    if (this.owners.get(key)) {
      throw new SfError('SF_E_CONFLICT', `the name "${ref.login}" is already taken by a user or organization`, {
        hint: 'choose another login',
      });
    }
    this.owners.putSync(key, ref);
  }

  createUser(login: string, admin: boolean): UserRecord {
    const user: UserRecord = { id: `u_${randomUUID()}`, login, admin, createdAt: now() };
    this.root.transactionSync(() => {
      this.claimOwner({ kind: 'user', id: user.id, login });
      this.users.putSync(user.id, user);
    });
    return user;
  }

  getUser(id: string) {
    return this.users.get(id);
  }

  createOrg(login: string, ownerUserId: string): OrgRecord {
    const org: OrgRecord = { id: `o_${randomUUID()}`, login, members: [{ userId: ownerUserId, role: 'owner' }], createdAt: now() };
    this.root.transactionSync(() => {
      this.claimOwner({ kind: 'org', id: org.id, login });
      this.orgs.putSync(org.id, org);
    });
    return org;
  }

  getOrg(id: string) {
    return this.orgs.get(id);
  }

  setOrgMember(orgId: string, userId: string, role: OrgRole | null): OrgRecord {
    return this.root.transactionSync(() => {
      const org = this.orgs.get(orgId);
      if (!org) throw new SfError('SF_E_NOT_FOUND', `organization ${orgId} does not exist`, { hint: 'check the organization; create it with POST /api/v1/orgs' });
      const members = org.members.filter((m) => m.userId !== userId);
      if (role) members.push({ userId, role });
      if (!members.some((m) => m.role === 'owner')) {
        throw new SfError('SF_E_CONFLICT', `organization ${org.login} must keep at least one owner`, { hint: 'add another owner first' });
      }
      const next = { ...org, members };
      this.orgs.putSync(orgId, next);
      return next;
    });
  }

  findOwner(login: string) {
    return this.owners.get(login.toLowerCase());
  }

  listUsers() {
    return [...this.users.getRange()].map((e) => e.value);
  }
}

class LmdbTokens implements TokenStore {
  constructor(
    private readonly root: RootDatabase,
    private readonly byId: Database<TokenRecord, string>,
    private readonly bySecret: Database<string, string>,
  ) {}

  put(token: TokenRecord): void {
    this.root.transactionSync(() => {
      this.byId.putSync(token.id, token);
      this.bySecret.putSync(token.secretHash, token.id);
    });
  }

  getBySecretHash(secretHash: string) {
    const id = this.bySecret.get(secretHash);
    return id ? this.byId.get(id) : undefined;
  }

  get(id: string) {
    return this.byId.get(id);
  }

  listForUser(userId: string) {
    return [...this.byId.getRange()].map((e) => e.value).filter((t) => t.userId === userId);
  }

  revoke(id: string, at: string) {
    return this.root.transactionSync(() => {
      const t = this.byId.get(id);
      if (!t) return undefined;
      const next = { ...t, revokedAt: t.revokedAt ?? at };
      this.byId.putSync(id, next);
      return next;
    });
  }
}

/** Figures kept per SKIT in the release transactions, so quotas and list pages read no release ranges. */
interface SkitState {
  releases: number;
  latest?: LatestSummary;
}

/**
 * registry-meta keys: the data directory has its derived figures (v2: with the blob references);
 * the write counter caches key on
 */
const DERIVED = 'derived-v2';
const GENERATION = 'generation';

const ownerOfSkit = (skitId: string) => skitId.slice(0, skitId.indexOf('/'));
const storedBytesOf = (r: ReleaseRecord) => r.storedBytes ?? r.archiveSize;
/** Every blob a release reads: its archive, each skill archive, and each file (a skill's files are SKIT files). */
const blobsOf = (r: ReleaseRecord): Set<string> =>
  new Set([r.archiveSha256, ...r.files.map((f) => f.sha256), ...r.skills.flatMap((k) => [k.archiveSha256, ...k.files.map((f) => f.sha256)])]);
/** blob-refs key: `<sha256>/<skitId>@<version>`, so the references of one blob are adjacent */
const refKey = (sha256: string, r: ReleaseRecord) => `${sha256}/${r.skitId}@${r.version}`;
const summaryOf = (r: ReleaseRecord): LatestSummary => ({ version: r.version, skills: r.skills.map((k) => ({ name: k.name, description: k.description })) });

/** The state of a SKIT with exactly these releases: the newest non-quarantined one is the latest (stable preferred). */
function stateOf(releases: readonly ReleaseRecord[]): SkitState {
  const candidates = releases.filter((r) => !r.quarantined);
  const version = latestVersion(candidates.map((r) => r.version));
  const latest = candidates.find((r) => r.version === version);
  return { releases: releases.length, ...(latest ? { latest: summaryOf(latest) } : {}) };
}

/** `state` after `release` (new, so not quarantined) joins: the latest rule is a maximum, so comparing with the old latest suffices. */
function withRelease(state: SkitState, release: ReleaseRecord): SkitState {
  const newer = !state.latest || latestVersion([state.latest.version, release.version]) === release.version;
  return { releases: state.releases + 1, ...(newer ? { latest: summaryOf(release) } : { latest: state.latest }) };
}

class LmdbRegistry implements RegistryStore {
  constructor(
    private readonly root: RootDatabase,
    private readonly skits: Database<SkitRecord, string>,
    private readonly releases: Database<ReleaseRecord, string>,
    private readonly states: Database<SkitState, string>,
    private readonly ownerBytes: Database<number, string>,
    private readonly meta: Database<number | boolean, string>,
    private readonly blobRefs: Database<true, string>,
    private readonly isClosed: () => boolean,
  ) {
    this.deriveOnce();
  }

  /** Records that `release` reads its blobs (in the caller's transaction; idempotent). */
  private addBlobRefs(release: ReleaseRecord): void {
    for (const sha256 of blobsOf(release)) this.blobRefs.putSync(refKey(sha256, release), true);
  }

  /**
   * A data directory from before the per-SKIT and per-owner figures gets them computed from its
   * releases once, in one write transaction (so a publish of another process waits for it). The
   * marker is the number of releases the figures account for: a hub of an earlier version that
   * published into the directory since (it keeps no figures) leaves more releases than that, and
   * the figures are computed again, so latest, counts and quotas never lag behind its releases.
   */
  private deriveOnce(): void {
    this.root.transactionSync(() => {
      if (this.meta.get(DERIVED) === this.releaseRecords()) return;
      const bytes = new Map<string, number>();
      let group: ReleaseRecord[] = [];
      const flush = () => {
        if (group.length) this.states.putSync(group[0].skitId, stateOf(group));
        group = [];
      };
      // keys are `<skitId>@<version>` and ids hold no '@': a SKIT's releases are adjacent
      for (const { value } of this.releases.getRange()) {
        if (group.length && group[0].skitId !== value.skitId) flush();
        group.push(value);
        this.addBlobRefs(value);
        const owner = ownerOfSkit(value.skitId);
        bytes.set(owner, (bytes.get(owner) ?? 0) + storedBytesOf(value));
      }
      flush();
      for (const [owner, n] of bytes) this.ownerBytes.putSync(owner, n);
      this.meta.putSync(DERIVED, this.releaseRecords());
    });
  }

  /** How many release records the store holds (LMDB keeps the count: no scan). */
  private releaseRecords(): number {
    return (this.releases.getStats() as { entryCount: number }).entryCount;
  }

  private bumpGeneration(): void {
    this.meta.putSync(GENERATION, this.generation() + 1);
  }

  generation() {
    return (this.meta.get(GENERATION) as number | undefined) ?? 0;
  }

  getSkit(id: string) {
    return this.skits.get(id);
  }

  putSkit(skit: SkitRecord) {
    this.root.transactionSync(() => {
      this.skits.putSync(skit.id, skit);
      this.bumpGeneration();
    });
  }

  listSkits() {
    return [...this.skits.getRange()].map((e) => e.value);
  }

  *scanSkits(range: { after?: string; prefix?: string } = {}) {
    const { after, prefix } = range;
    const start = after !== undefined && (prefix === undefined || after > prefix) ? after : prefix;
    for (const { key, value } of this.skits.getRange({ start, ...(prefix !== undefined ? { end: `${prefix}\uffff` } : {}) })) {
      if (after === undefined || compareCodeUnits(key, after) > 0) yield value;
    }
  }

  getRelease(skitId: string, version: string) {
    return this.releases.get(`${skitId}@${version}`);
  }

  listReleases(skitId: string) {
    return [...this.releases.getRange({ start: `${skitId}@`, end: `${skitId}@\uffff` })].map((e) => e.value);
  }

  private state(skitId: string): SkitState {
    return this.states.get(skitId) ?? { releases: 0 };
  }

  releaseCount(skitId: string) {
    return this.state(skitId).releases;
  }

  latestSummary(skitId: string) {
    return this.state(skitId).latest;
  }

  latestRelease(skitId: string) {
    const latest = this.latestSummary(skitId);
    return latest ? this.getRelease(skitId, latest.version) : undefined;
  }

  createRelease(release: ReleaseRecord, decide: (current: SkitRecord | undefined, state: { releases: number; ownerBytes: number }) => SkitRecord): SkitRecord | undefined {
    const key = `${release.skitId}@${release.version}`;
    const owner = ownerOfSkit(release.skitId);
    return this.root.transactionSync(() => {
      if (this.releases.get(key)) return undefined;
      const current = this.skits.get(release.skitId);
      const state = this.state(release.skitId);
      const ownerBytes = this.ownerStorageBytes(owner);
      const skit = decide(current, { releases: state.releases, ownerBytes });
      if (!isDeepStrictEqual(skit, current)) this.skits.putSync(skit.id, skit);
      this.releases.putSync(key, release);
      this.addBlobRefs(release);
      this.states.putSync(release.skitId, withRelease(state, release));
      this.ownerBytes.putSync(owner, ownerBytes + storedBytesOf(release));
      // the figures account for this release too (see deriveOnce)
      this.meta.putSync(DERIVED, ((this.meta.get(DERIVED) as number | undefined) ?? 0) + 1);
      this.bumpGeneration();
      return skit;
    });
  }

  updateReleaseFlags(skitId: string, version: string, flags: Pick<ReleaseRecord, 'deprecated' | 'quarantined'>) {
    const key = `${skitId}@${version}`;
    return this.root.transactionSync(() => {
      const r = this.releases.get(key);
      if (!r) return undefined;
      const next = { ...r, ...flags };
      this.releases.putSync(key, next);
      // a quarantine can change which release is the latest: decided again from the SKIT's own releases
      if (Boolean(r.quarantined) !== Boolean(next.quarantined)) this.states.putSync(skitId, stateOf(this.listReleases(skitId)));
      this.bumpGeneration();
      return next;
    });
  }

  ownerStorageBytes(owner: string): number {
    return this.ownerBytes.get(owner) ?? 0;
  }

  blobReferenced(sha256: string): boolean {
    // a closed store cannot tell, and a blob kept by mistake costs only disk
    if (this.isClosed()) return true;
    for (const _ of this.blobRefs.getKeys({ start: `${sha256}/`, end: `${sha256}/\uffff`, limit: 1 })) return true;
    return false;
  }
}

/**
 * Opens (creating if needed) the embedded hub storage in `dataDir`. A data directory this creates
 * (and any missing parent, such as $SF_HOME) is private, 0700, as database servers require of
 * theirs: it holds accounts, token digests and raw telemetry. An existing one keeps its mode.
 */
export function openEmbeddedStorage(dataDir: string): HubStorage {
  assertLocalDataDir(dataDir, 'the hub data directory', process.env, undefined, MOVE_HUB_DATA);
  mkdirDurableSync(dataDir, 0o700);
  // maxDbs: the registry's databases plus the telemetry ones (openEmbeddedTelemetry opens about 20)
  const root = open({ path: join(dataDir, 'hub.lmdb'), compression: false, maxDbs: 64 });
  const db = <V>(name: string) => root.openDB<V, string>({ name });
  let closed = false;
  return {
    accounts: new LmdbAccounts(root, db('users'), db('orgs'), db('owners')),
    tokens: new LmdbTokens(root, db('tokens'), db('token-secrets')),
    registry: new LmdbRegistry(root, db('skits'), db('releases'), db('skit-state'), db('owner-bytes'), db('registry-meta'), db('blob-refs'), () => closed),
    blobs: new BlobDir(join(dataDir, 'blobs')),
    telemetry: openEmbeddedTelemetry(root, dataDir),
    durable: async () => {
      await root.flushed;
    },
    close: () => {
      closed = true;
      return root.close();
    },
  };
}
