import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { SfError } from '../../core/errors/index.js';
import { ALL_SCOPES, type CredentialKind, type Scope, type TokenRecord, type TokenStore } from '../storage/ports.js';

const PREFIX: Record<CredentialKind, string> = { pat: 'sfp_', device: 'sfd_' };

/** sha256 hex of a token secret: the only form in which secrets are stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export interface IssueTokenInput {
  userId: string;
  kind: CredentialKind;
  name: string;
  scopes: Scope[];
  rotatedFrom?: string;
}

/**
 * Issues a new credential and returns its secret exactly once. Device credentials may only ever
 * hold `telemetry:write`.
 *
 * @throws SF_E_USAGE for unknown scopes or a device credential asking for more than telemetry:write
 */
export function issueToken(store: TokenStore, input: IssueTokenInput): { secret: string; record: TokenRecord } {
  const unknown = input.scopes.filter((s) => !ALL_SCOPES.includes(s));
  if (unknown.length) {
    throw new SfError('SF_E_USAGE', `unknown token scope(s): ${unknown.join(', ')}`, { hint: `valid scopes: ${ALL_SCOPES.join(', ')}` });
  }
  if (input.kind === 'device' && input.scopes.some((s) => s !== 'telemetry:write')) {
    throw new SfError('SF_E_USAGE', 'a device credential can only hold the telemetry:write scope', {
      hint: 'issue a personal access token for registry or admin scopes',
    });
  }
  const secret = PREFIX[input.kind] + randomBytes(32).toString('base64url');
  const record: TokenRecord = {
    id: `t_${randomUUID()}`,
    userId: input.userId,
    kind: input.kind,
    name: input.name,
    scopes: [...new Set(input.scopes)].sort(),
    secretHash: hashSecret(secret),
    createdAt: new Date().toISOString(),
    ...(input.rotatedFrom ? { rotatedFrom: input.rotatedFrom } : {}),
  };
  store.put(record);
  return { secret, record };
}

/** Revokes `tokenId` and issues a replacement with the same user, kind, name and scopes. */
export function rotateToken(store: TokenStore, tokenId: string): { secret: string; record: TokenRecord } {
  const old = store.get(tokenId);
  if (!old || old.revokedAt) throw new SfError('SF_E_NOT_FOUND', `token ${tokenId} does not exist or is revoked`, {
    hint: 'list your tokens with GET /api/v1/tokens; a revoked token cannot be rotated, create a new one with POST /api/v1/tokens',
  });
  const next = issueToken(store, { userId: old.userId, kind: old.kind, name: old.name, scopes: old.scopes, rotatedFrom: old.id });
  store.revoke(old.id, new Date().toISOString());
  return next;
}

/** Looks a presented secret up; undefined when unknown or revoked. Constant-time compare of the hash. */
export function verifySecret(store: TokenStore, secret: string): TokenRecord | undefined {
  if (!/^sf[pd]_[A-Za-z0-9_-]{20,}$/.test(secret)) return undefined;
  const hash = hashSecret(secret);
  const record = store.getBySecretHash(hash);
  if (!record || record.revokedAt) return undefined;
  const a = Buffer.from(record.secretHash, 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b) ? record : undefined;
}
