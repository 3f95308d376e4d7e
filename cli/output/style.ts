import { isTerminal, type Output } from './stdio.js';

/**
 * Whether `output` gets colours: never with NO_COLOR (https://no-color.org); FORCE_COLOR=1-3
 * forces them and FORCE_COLOR=0 turns them off (the chalk convention); otherwise only on a
 * terminal other than TERM=dumb.
 */
export function colourOn(output: Output): boolean {
  if (process.env.NO_COLOR) return false;
  const force = process.env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return process.env.TERM !== 'dumb' && isTerminal(output);
}

const enabled = colourOn;

/** `text` in a colour or weight when it goes to a terminal (`output`, stdout unless told). */
const wrap = (open: number, close: number) => (text: string, output: Output = 'stdout') =>
  enabled(output) ? `\u001b[${open}m${text}\u001b[${close}m` : text;

export const red = wrap(31, 39);
export const yellow = wrap(33, 39);
export const green = wrap(32, 39);
export const dim = wrap(2, 22);
export const bold = wrap(1, 22);

/** Strip terminal control characters from strings that came from a repository or remote before printing them. */
export function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
}
