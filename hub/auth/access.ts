import type { AccountStore, SkitRecord } from '../storage/ports.js';
import { isAdmin, type Principal } from './principal.js';

/** The user's role on an owner namespace: 'owner' for their own user namespace, org role for orgs. */
export function roleOnOwner(accounts: AccountStore, p: Principal, ownerLogin: string): 'owner' | 'member' | null {
  if (!p.user) return null;
  const owner = accounts.findOwner(ownerLogin);
  if (!owner) return null;
  if (owner.kind === 'user') return owner.id === p.user.id ? 'owner' : null;
  const org = accounts.getOrg(owner.id);
  return org?.members.find((m) => m.userId === p.user!.id)?.role ?? null;
}

/** Public and unlisted SKITs are visible to anyone who can read; private ones only to the owner's members and admins (with an admin-scoped PAT). */
export function canViewSkit(accounts: AccountStore, p: Principal, skit: SkitRecord): boolean {
  if (skit.visibility !== 'private') return true;
  if (isAdmin(p)) return true;
  return roleOnOwner(accounts, p, skit.owner) !== null;
}

/** Publishing into an owner namespace needs membership (any role). */
export function canPublishTo(accounts: AccountStore, p: Principal, ownerLogin: string): boolean {
  return roleOnOwner(accounts, p, ownerLogin) !== null;
}

/** Changing SKIT settings (visibility, deprecation, quarantine) needs the owner role, or admin. */
export function canManageSkit(accounts: AccountStore, p: Principal, ownerLogin: string): boolean {
  if (isAdmin(p)) return true;
  return roleOnOwner(accounts, p, ownerLogin) === 'owner';
}
