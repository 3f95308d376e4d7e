import { SfError, type Diagnostic } from '../../../core/errors/index.js';

/**
 * The failure of `sf skit hash` or `pack` on a SKIT that does not validate: SF_E_VALIDATION, as
 * `sf add skit` and `publish` end, with the diagnostics in its data (the `{ "error" }` object
 * of --json carries them; human output prints them before it).
 */
export function invalidSkit(root: string, what: 'hashed' | 'packed', diagnostics: Diagnostic[]): SfError {
  return new SfError('SF_E_VALIDATION', `${root} is not a valid SKIT; nothing was ${what}`, {
    hint: 'fix the errors (`sf skit validate` lists them) and run the command again',
    data: { diagnostics },
  });
}
