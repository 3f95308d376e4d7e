/**
 * Whole numbers that survive render -> parse. JSON numbers beyond 2^53 - 1 have already lost
 * digits (9007199254740993 arrives as ...992), and String(1e21) is "1e+21", which no parser reads
 * back as a count.
 */
export function isWholeNumber(value: unknown, min = 0): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min;
}

/** Digits as a number; undefined for anything else, or for a value beyond 2^53 - 1 that would silently change. */
export function readWholeNumber(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The reason a string is not read as a whole number, for diagnostics. */
export function wholeNumberProblem(text: string): string {
  return /^\d+$/.test(text) ? `is larger than ${Number.MAX_SAFE_INTEGER}, so it cannot be read exactly` : 'is not a whole number';
}
