/**
 * The Agent Skills `name` rules exactly as the reference validator (skills-ref 0.1.5) applies
 * them, so our errors agree with its verdicts: trim, NFKC, at most 64 UTF-16 units, lowercase, no
 * hyphen at either end, no `--`, and only "letters", digits and hyphens, where letters are ASCII,
 * Latin-1 and Latin Extended-A/B, Cyrillic, CJK and combining marks. The specification's narrower
 * `[a-z0-9-]` charset is checked separately (as a warning) by the JSON Schema.
 */

export const MAX_NAME_LENGTH = 64;

export type NameProblem = 'too-long' | 'not-lowercase' | 'hyphen-edge' | 'consecutive-hyphens' | 'invalid-chars';

/** The form names are compared in: trimmed and NFKC-normalized. */
export function normalizeSkillName(name: string): string {
  return name.trim().normalize('NFKC');
}

/** Problems of a non-empty name, in the reference validator's order. */
export function nameProblems(name: string): NameProblem[] {
  const n = normalizeSkillName(name);
  const problems: NameProblem[] = [];
  if (n.length > MAX_NAME_LENGTH) problems.push('too-long');
  if (n !== n.toLowerCase()) problems.push('not-lowercase');
  if (n.startsWith('-') || n.endsWith('-')) problems.push('hyphen-edge');
  if (n.includes('--')) problems.push('consecutive-hyphens');
  if (Array.from(n).some((c) => c !== '-' && !isNameLetterOrDigit(c.codePointAt(0) ?? 0))) problems.push('invalid-chars');
  return problems;
}

/** Code-point ranges the reference validator accepts as letters or digits. */
const RANGES: [number, number][] = [
  [0x30, 0x39], // 0-9
  [0x41, 0x5a], // A-Z (rejected later by the lowercase rule)
  [0x61, 0x7a], // a-z
  [0xc0, 0x24f], // Latin-1 letters and Latin Extended-A/B (the range includes × and ÷)
  [0x300, 0x36f], // combining diacritical marks
  [0x400, 0x4ff], // Cyrillic
  [0x3400, 0x4dbf], // CJK Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
];

function isNameLetterOrDigit(cp: number): boolean {
  return RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);
}
