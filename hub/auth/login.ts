import { SfError } from '../../core/errors/index.js';

/** User and organization logins: they are SKIT owners, so the SKIT id owner rule (lowercase, digits, inner hyphens). */
const LOGIN = /^[a-z0-9](?:[a-z0-9-]{0,37}[a-z0-9])?$/;

/** The login, or SF_E_USAGE: shared by the API and `sf hub admin create-user`, so no login exists that could never publish. */
export function checkLogin(login: unknown): string {
  if (typeof login !== 'string' || !LOGIN.test(login)) {
    throw new SfError('SF_E_USAGE', `invalid login ${JSON.stringify(login)}`, { hint: 'use 1-39 lowercase letters, digits and inner hyphens' });
  }
  return login;
}
