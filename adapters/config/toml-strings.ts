/**
 * Which lines of a TOML text begin inside a multi-line string (`"""…"""` or `'''…'''`). Forge
 * finds its marked blocks by scanning lines, and a line that only looks like a marker or a table
 * header while it is text inside such a string is not one. Comments and one-line strings are
 * skipped too, so a `"""` in them opens nothing. The text is assumed to be valid TOML (it is
 * parsed before any scan); on anything else the answer is only a best effort.
 */
export function linesStartingInString(lines: readonly string[]): boolean[] {
  const out: boolean[] = [];
  let open: '"""' | "'''" | null = null;
  for (const line of lines) {
    out.push(open !== null);
    let i = 0;
    while (i < line.length) {
      if (open !== null) {
        if (open === '"""' && line[i] === '\\') {
          i += 2;
          continue;
        }
        if (line.startsWith(open, i)) {
          // up to two quotes right before the closing delimiter belong to the string
          let run = 3;
          while (run < 5 && line[i + run] === open[0]) run++;
          i += run;
          open = null;
          continue;
        }
        i++;
        continue;
      }
      const c = line[i];
      if (c === '#') break;
      if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
        open = line.slice(i, i + 3) as '"""' | "'''";
        i += 3;
        continue;
      }
      if (c === '"' || c === "'") {
        i = endOfOneLineString(line, i, c);
        continue;
      }
      i++;
    }
  }
  return out;
}

/** Index just past a one-line basic ("…", with escapes) or literal ('…') string starting at `from`. */
function endOfOneLineString(line: string, from: number, quote: string): number {
  for (let i = from + 1; i < line.length; i++) {
    if (quote === '"' && line[i] === '\\') i++;
    else if (line[i] === quote) return i + 1;
  }
  return line.length;
}
