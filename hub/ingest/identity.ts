import { createHash } from 'node:crypto';
import type { TokenRecord, TokenStore } from '../storage/ports.js';

/**
 * The pseudonymous device identity of a credential: stable across rotations (it follows
 * `rotatedFrom` to the first credential of the chain) and never the secret or the raw token id.
 */
export function deviceIdOf(tokens: TokenStore, token: TokenRecord): string {
  let root = token;
  for (let i = 0; i < 1000 && root.rotatedFrom; i++) {
    const prev = tokens.get(root.rotatedFrom);
    if (!prev) break;
    root = prev;
  }
  return `dev_${createHash('sha256').update(`forge-device:${root.id}`).digest('hex').slice(0, 26)}`;
}
