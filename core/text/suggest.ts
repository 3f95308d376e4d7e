/**
 * "Did you mean": the candidate closest to `input` by edit distance (case-insensitive), when it is
 * close enough to be a typo — at most a third of the input's length, and at least one edit away.
 * Undefined when nothing is that close, or when two candidates are equally close.
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase();
  const limit = Math.max(1, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tied = false;
  for (const candidate of candidates) {
    const d = editDistance(wanted, candidate.toLowerCase(), limit);
    if (d === 0 || d > limit) continue;
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
      tied = false;
    } else if (d === bestDistance && candidate !== best) tied = true;
  }
  return tied ? undefined : best;
}

/** Levenshtein distance with adjacent transpositions, stopping early once it exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current[j] = d;
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}

/** ` (did you mean "x"?)` for a message, or '' when there is no close candidate. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closestMatch(input, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
