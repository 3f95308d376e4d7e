import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { SfError } from '../../../core/errors/index.js';
import { mkdirDurableSync } from '../../../core/fs/atomic.js';
import { assertLocalDataDir, MOVE_HUB_DATA } from '../../../core/fs/filesystem-kind.js';
import type {
  AccountStore, HubStorage, OrgRecord, OrgRole, OwnerRef, RegistryStore, ReleaseRecord, SkitRecord, TokenRecord, TokenStore, UserRecord,
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

class LmdbRegistry implements RegistryStore {
  constructor(
    private readonly root: RootDatabase,
    private readonly skits: Database<SkitRecord, string>,
    private readonly releases: Database<ReleaseRecord, string>,
  ) {}

  getSkit(id: string) {
    return this.skits.get(id);
  }

  putSkit(skit: SkitRecord) {
    this.skits.putSync(skit.id, skit);
  }

  listSkits() {
    return [...this.skits.getRange()].map((e) => e.value);
  }

  getRelease(skitId: string, version: string) {
    return this.releases.get(`${skitId}@${version}`);
  }

  listReleases(skitId: string) {
    return [...this.releases.getRange({ start: `${skitId}@`, end: `${skitId}@\uffff` })].map((e) => e.value);
  }

  createRelease(release: ReleaseRecord, decide: (current: SkitRecord | undefined, state: { releases: number; ownerBytes: number }) => SkitRecord): SkitRecord | undefined {
    const key = `${release.skitId}@${release.version}`;
    return this.root.transactionSync(() => {
      if (this.releases.get(key)) return undefined;
      const current = this.skits.get(release.skitId);
      const skit = decide(current, { releases: this.listReleases(release.skitId).length, ownerBytes: this.ownerStorageBytes(current?.owner ?? release.skitId.split('/')[0]) });
      if (!isDeepStrictEqual(skit, current)) this.skits.putSync(skit.id, skit);
      this.releases.putSync(key, release);
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
      return next;
    });
  }

  ownerStorageBytes(owner: string): number {
    let total = 0;
    for (const { value } of this.releases.getRange({ start: `${owner}/`, end: `${owner}/\uffff` })) total += value.storedBytes ?? value.archiveSize;
    return total;
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
  return {
    accounts: new LmdbAccounts(root, db('users'), db('orgs'), db('owners')),
    tokens: new LmdbTokens(root, db('tokens'), db('token-secrets')),
    registry: new LmdbRegistry(root, db('skits'), db('releases')),
    blobs: new BlobDir(join(dataDir, 'blobs')),
    telemetry: openEmbeddedTelemetry(root, dataDir),
    durable: async () => {
      await root.flushed;
    },
    close: () => root.close(),
  };
}
