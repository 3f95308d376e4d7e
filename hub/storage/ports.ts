/**
 * Storage ports of the hub. The embedded implementation (hub/storage/embedded) uses LMDB for
 * records and a content-addressed blob directory; a server database can implement the same
 * interfaces for teams. Handlers only see these interfaces.
 */

export type Scope = 'registry:read' | 'registry:write' | 'telemetry:write' | 'admin';
export const ALL_SCOPES: readonly Scope[] = ['registry:read', 'registry:write', 'telemetry:write', 'admin'];

export interface UserRecord {
  id: string;
  login: string;
  admin: boolean;
  createdAt: string;
}

export type OrgRole = 'owner' | 'member';

export interface OrgRecord {
  id: string;
  login: string;
  members: { userId: string; role: OrgRole }[];
  createdAt: string;
}

/** Owner names are one namespace shared by users and organizations. */
export interface OwnerRef {
  kind: 'user' | 'org';
  id: string;
  login: string;
}

export type CredentialKind = 'pat' | 'device';

export interface TokenRecord {
  id: string;
  userId: string;
  kind: CredentialKind;
  name: string;
  scopes: Scope[];
  /** sha256 hex of the secret; the secret itself is never stored */
  secretHash: string;
  createdAt: string;
  revokedAt?: string;
  /** id of the token this one replaced on rotation */
  rotatedFrom?: string;
}

export type Visibility = 'public' | 'unlisted' | 'private';

/** Deprecation: still installable, with guidance. */
export interface DeprecationFlag {
  message: string;
  /** what to use instead: `owner/name` or `owner/name@version` */
  replacement?: string;
  at: string;
}

/** Quarantine: hidden from indexes and refused for download except to the SKIT's managers. */
export interface QuarantineFlag {
  reason: string;
  replacement?: string;
  at: string;
  /** set by a hub admin: only an admin may lift it */
  byAdmin?: boolean;
}

export interface SkitRecord {
  /** owner/name */
  id: string;
  owner: string;
  name: string;
  visibility: Visibility;
  description: string;
  tags: string[];
  createdAt: string;
  deprecated?: DeprecationFlag;
  quarantined?: QuarantineFlag;
}

export interface ReleaseFile {
  path: string;
  mode: 'file' | 'exec';
  size: number;
  sha256: string;
}

/** One file of a contained skill's projection (skill-relative path; `from` = SKIT-relative source of a shared mapping). */
export interface ReleaseSkillFile extends ReleaseFile {
  from?: string;
}

export interface ReleaseSkill {
  name: string;
  id: string;
  path: string;
  hash: string;
  defaultEnabled: boolean;
  description: string;
  /** sha256 of the per-skill archive (SKILL.md at its root) served to generic clients */
  archiveSha256: string;
  archiveSize: number;
  /** the skill projection: own files plus materialized shared mappings */
  files: ReleaseSkillFile[];
}

export interface ReleaseRecord {
  skitId: string;
  version: string;
  bundleHash: string;
  /** sha256 of the deterministic release archive (the blob key) */
  archiveSha256: string;
  archiveSize: number;
  /** bytes this release adds to the owner's storage quota: the release archive plus every per-skill archive */
  storedBytes: number;
  skills: ReleaseSkill[];
  files: ReleaseFile[];
  publishedAt: string;
  publishedBy: string;
  deprecated?: DeprecationFlag;
  quarantined?: QuarantineFlag;
}

export interface AccountStore {
  createUser(login: string, admin: boolean): UserRecord;
  getUser(id: string): UserRecord | undefined;
  createOrg(login: string, ownerUserId: string): OrgRecord;
  getOrg(id: string): OrgRecord | undefined;
  setOrgMember(orgId: string, userId: string, role: OrgRole | null): OrgRecord;
  findOwner(login: string): OwnerRef | undefined;
  listUsers(): UserRecord[];
}

export interface TokenStore {
  put(token: TokenRecord): void;
  getBySecretHash(secretHash: string): TokenRecord | undefined;
  get(id: string): TokenRecord | undefined;
  listForUser(userId: string): TokenRecord[];
  revoke(id: string, at: string): TokenRecord | undefined;
}

/** What listing and search show of a SKIT's latest installable release, kept beside the SKIT so a page reads no releases. */
export interface LatestSummary {
  version: string;
  skills: { name: string; description: string }[];
}

export interface RegistryStore {
  getSkit(id: string): SkitRecord | undefined;
  putSkit(skit: SkitRecord): void;
  listSkits(): SkitRecord[];
  /** SKITs in id order (code units), lazily, after `after` if given and below `prefix` if given */
  scanSkits(range?: { after?: string; prefix?: string }): Iterable<SkitRecord>;
  getRelease(skitId: string, version: string): ReleaseRecord | undefined;
  listReleases(skitId: string): ReleaseRecord[];
  /** how many releases the SKIT has, for the release-count quota */
  releaseCount(skitId: string): number;
  /** the newest release that is not quarantined (stable releases preferred), if any */
  latestRelease(skitId: string): ReleaseRecord | undefined;
  /** version and skills of `latestRelease`, without reading it */
  latestSummary(skitId: string): LatestSummary | undefined;
  /**
   * Atomically creates the release and stores the SKIT record `decide` returns for the SKIT as it
   * is inside the transaction (undefined on first publish), given its release count and the
   * owner's stored bytes: quotas and settings are decided on the state the release joins, so
   * concurrent publishes cannot pass a quota together or lose a first publish's settings. `decide`
   * throws to refuse. Undefined when the version already exists (releases are immutable).
   */
  createRelease(release: ReleaseRecord, decide: (current: SkitRecord | undefined, state: { releases: number; ownerBytes: number }) => SkitRecord): SkitRecord | undefined;
  updateReleaseFlags(skitId: string, version: string, flags: Pick<ReleaseRecord, 'deprecated' | 'quarantined'>): ReleaseRecord | undefined;
  /** total stored bytes (`storedBytes` of every release) of an owner, for the owner storage quota */
  ownerStorageBytes(owner: string): number;
  /**
   * True when a release reads the blob (its archive, a skill archive or a file): the registry's
   * blob sweeper deletes only blobs no release reads. True as well when the store cannot tell
   * (closed): keeping a blob by mistake costs only disk.
   */
  blobReferenced(sha256: string): boolean;
  /** a number that changes with every registry write: documents derived from the registry are cached under it */
  generation(): number;
}

export interface BlobStore {
  /**
   * Stores bytes under their sha256 and returns it; idempotent. `sha256` is the bytes' hash when
   * the caller already computed it (so they are not hashed twice); it must be right.
   */
  put(bytes: Uint8Array, sha256?: string): Promise<string>;
  get(sha256: string): Promise<Buffer | undefined>;
  has(sha256: string): Promise<boolean>;
  delete(sha256: string): Promise<void>;
  list(): AsyncIterable<{ sha256: string; size: number; mtimeMs: number }>;
  /** temp files of puts that never finished (a crash mid-write), with the hash each was for */
  listTemp(): AsyncIterable<{ name: string; sha256: string; mtimeMs: number }>;
  /** removes a temp file `listTemp` named */
  deleteTemp(name: string): Promise<void>;
}

export interface HubStorage {
  accounts: AccountStore;
  tokens: TokenStore;
  registry: RegistryStore;
  blobs: BlobStore;
  /** OTLP ingest, normalization queue and projections (telemetry-ports.ts) */
  telemetry: TelemetryStorage;
  /**
   * Resolves once every write this process committed so far is on disk. The embedded store
   * commits first and flushes after (lmdb overlappingSync), so a commit alone does not survive a
   * power cut; a store whose commits are durable may resolve at once.
   */
  durable(): Promise<void>;
  close(): Promise<void>;
}

export type * from './telemetry-ports.js';
import type { TelemetryStorage } from './telemetry-ports.js';
