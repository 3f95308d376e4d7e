import type { Context, MiddlewareHandler } from 'hono';
import { SfError } from '../../core/errors/index.js';
import type { RegistryLimits } from '../limits.js';
import { ALL_SCOPES, type HubStorage, type Scope, type TokenRecord, type UserRecord } from '../storage/ports.js';
import { verifySecret } from './tokens.js';

/** Who is calling: anonymous, or a user acting through one credential with its scopes. */
export interface Principal {
  user?: UserRecord;
  token?: TokenRecord;
  scopes: ReadonlySet<Scope>;
}

export const ANONYMOUS: Principal = { scopes: new Set() };

/** Per-hub settings the registry routes read from the context. */
export interface RegistrySettings {
  limits: RegistryLimits;
  /** public base URL without a trailing slash; '' means links are root-relative */
  baseUrl: string;
  /** blob reads for downloads (through a small LRU of immutable blobs) */
  readBlob(sha256: string): Promise<Buffer | undefined>;
}

export type HubEnv = { Variables: { principal: Principal; storage: HubStorage; registry: RegistrySettings } };

/**
 * Resolves the bearer credential, if any. An invalid or revoked credential is a 401 at once (it is
 * never treated as anonymous), so revocation takes effect on the next request.
 */
export function authenticate(storage: HubStorage): MiddlewareHandler<HubEnv> {
  return async (c, next) => {
    c.set('storage', storage);
    const header = c.req.header('authorization');
    if (!header) {
      c.set('principal', ANONYMOUS);
      return next();
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match ? verifySecret(storage.tokens, match[1]) : undefined;
    const user = token ? storage.accounts.getUser(token.userId) : undefined;
    if (!token || !user) {
      throw new SfError('SF_E_AUTH', 'the credential is invalid, expired or revoked', {
        hint: 'create a new token and run `sf login --hub <url>` again',
      });
    }
    // the admin scope means something only for an admin user (a token minted with it for anyone
    // else, or kept after the user stopped being an admin, has it without effect)
    c.set('principal', { user, token, scopes: new Set(token.scopes.filter((s) => s !== 'admin' || user.admin)) });
    return next();
  };
}

/** True for an admin user acting through a personal access token with the admin scope. */
export function isAdmin(p: Principal): boolean {
  return Boolean(p.user?.admin && p.token?.kind === 'pat' && p.scopes.has('admin'));
}

/**
 * Requires a personal access token (creating, rotating and revoking credentials). A device
 * credential is valid but not allowed here: 403, not 401 (which would tell the client to drop it).
 */
export function requirePat(c: Context<HubEnv>, action: string): Principal & { user: UserRecord; token: TokenRecord } {
  const p = c.get('principal');
  if (!p.user || !p.token) throw new SfError('SF_E_AUTH', `authentication required to ${action}`, { hint: 'send Authorization: Bearer <personal access token>' });
  if (p.token.kind !== 'pat') {
    throw new SfError('SF_E_FORBIDDEN', `a device credential cannot ${action}`, { hint: 'use a personal access token (device credentials only send telemetry)' });
  }
  return p as Principal & { user: UserRecord; token: TokenRecord };
}

/** Requires an authenticated principal holding `scope` (admin implies every scope except telemetry-only devices). */
export function requireScope(c: Context<HubEnv>, scope: Scope): Principal & { user: UserRecord; token: TokenRecord } {
  const p = c.get('principal');
  if (!p.user || !p.token) {
    throw new SfError('SF_E_AUTH', `authentication required (${scope})`, { hint: 'send Authorization: Bearer <token>' });
  }
  const ok = p.scopes.has(scope) || isAdmin(p);
  if (!ok) {
    throw new SfError('SF_E_FORBIDDEN', `the credential lacks the ${scope} scope`, { hint: `issue a token with ${scope}`, data: { scope } });
  }
  return p as Principal & { user: UserRecord; token: TokenRecord };
}

/** The scopes of an unrestricted personal access token: every scope but admin. */
export const FULL_SCOPES: readonly Scope[] = ALL_SCOPES.filter((s) => s !== 'admin');

/**
 * Requires a personal access token that may change how the account itself is governed (telemetry
 * content opt-in, repository links): one holding every non-admin scope, or an admin token. Such a
 * change affects everything the account's credentials do, so a token cut down to reading,
 * publishing or sending telemetry must not make it; no narrower scope means "manage the account".
 */
export function requireFullPat(c: Context<HubEnv>, action: string): Principal & { user: UserRecord; token: TokenRecord } {
  const p = requirePat(c, action);
  const missing = FULL_SCOPES.filter((s) => !p.scopes.has(s));
  if (missing.length && !isAdmin(p)) {
    throw new SfError('SF_E_FORBIDDEN', `to ${action} a token needs every scope (${FULL_SCOPES.join(', ')}); this one lacks ${missing.join(', ')}`, {
      hint: `use the token \`sf hub admin create-user\` printed, or one created with POST /api/v1/tokens {"scopes": ${JSON.stringify(FULL_SCOPES)}} from such a token`,
      data: { scope: FULL_SCOPES.join(' ') },
    });
  }
  return p;
}

/** True when the principal may read registry content it has access to (anonymous reads of public content are allowed). */
export function canReadRegistry(p: Principal): boolean {
  if (!p.token) return true;
  if (p.token.kind === 'device') return false;
  return p.scopes.has('registry:read') || p.scopes.has('registry:write') || p.scopes.has('admin');
}
