import { appendAll } from '../append.js';
import { SEVERITIES, isOneOf } from '../enums.js';
import { guardLines, oneOf, refuseUnknownKeys, splitValue } from './guard.js';
import { enumDiag } from './codecs-text.js';
import type { Codec } from './spec.js';

/**
 * `FORGE:REVIEWER` findings (4.1): a list item opening with `**Severity**:` followed by indented
 * `**Location**:`, `**Issue**:`, `**Suggested fix**:` and `**Prevention**:` lines. An empty list
 * is written as `None`.
 */

export interface Finding {
  severity: string;
  /** `{filepath}:{line}` without the backticks */
  location: string;
  issue: string;
  suggestedFix: string;
  prevention: string;
}

const FIELDS: { key: keyof Finding; label: string }[] = [
  { key: 'severity', label: 'Severity' },
  { key: 'location', label: 'Location' },
  { key: 'issue', label: 'Issue' },
  { key: 'suggestedFix', label: 'Suggested fix' },
  { key: 'prevention', label: 'Prevention' },
];
const byLabel = new Map(FIELDS.map((f) => [f.label.toLowerCase(), f.key]));
const ITEM = /^[-*]\s+\*\*([^*]+?):?\*\*:?\s*(.*)$/;
const SUB = /^\s+\*\*([^*]+?):?\*\*:?\s*(.*)$/;
const NONE = /^(none|no findings)\.?$/i;

export const findingsCodec: Codec<Finding[]> = {
  parse(lines, report) {
    if (lines.length === 1 && NONE.test(lines[0].text.trim())) return [];
    const found: { values: Partial<Record<keyof Finding, string>>; line: number; last?: keyof Finding }[] = [];
    for (const l of lines) {
      if (l.text.trim() === '') continue;
      const item = ITEM.exec(l.text);
      const sub = item ? null : SUB.exec(l.text);
      const m = item ?? sub;
      if (item) found.push({ values: {}, line: l.line });
      const current = found[found.length - 1];
      if (m && current) {
        const key = byLabel.get(m[1].trim().toLowerCase());
        if (!key) {
          report.diag('FORGE_FIELD_UNKNOWN', 'info', `finding field **${m[1]}** is not part of the protocol`, { line: l.line });
          current.last = undefined;
          continue;
        }
        if (current.values[key] !== undefined) report.diag('FORGE_FIELD_DUPLICATE', 'warning', `finding repeats **${m[1]}**`, { line: l.line });
        current.values[key] = m[2].trim();
        current.last = key;
      } else if (current && /^\s/.test(l.text) && current.last) {
        current.values[current.last] += '\n' + l.text.trim();
      } else {
        report.diag('FORGE_LINE_UNEXPECTED', 'warning', `"${l.text.trim()}" is not part of a finding`, { line: l.line, hint: 'start each finding with "- **Severity**: ..."' });
      }
    }
    if (found.length === 0) return undefined;
    return found.map((f, i) => {
      for (const { key, label } of FIELDS) if (f.values[key] === undefined) report.missing(`Findings[${i + 1}].${label}`, f.line, `add "**${label}**:" to the finding`);
      if (f.values.severity !== undefined && !isOneOf(SEVERITIES, f.values.severity)) enumDiag(report, `Findings[${i + 1}].Severity`, f.values.severity, SEVERITIES, f.line);
      if (f.values.location !== undefined) f.values.location = f.values.location.replace(/^`([^`]*)`$/, '$1');
      const out: Partial<Finding> = {};
      for (const { key } of FIELDS) if (f.values[key] !== undefined) out[key] = f.values[key];
      return out as Finding;
    });
  },
  render(value, where, problems) {
    if (!Array.isArray(value)) {
      problems.add(`${where} must be an array of findings (use [] for none)`, `set "${where}" to []`);
      return [];
    }
    if (value.length === 0) return ['None'];
    const out: string[] = [];
    value.forEach((f, i) => {
      const at = `${where}[${i}]`;
      if (typeof f !== 'object' || f === null) {
        problems.add(`${at} must be an object`, `write ${at} as {"severity", "location", "issue", "suggestedFix", "prevention"}`);
        return;
      }
      refuseUnknownKeys(f as Record<string, unknown>, FIELDS.map((x) => x.key), at, problems);
      FIELDS.forEach(({ key, label }, n) => {
        const v = (f as Record<string, unknown>)[key];
        if (typeof v !== 'string' || !v.trim()) {
          problems.add(`${at}.${key} (**${label}**) is missing`, `set "${key}" in ${at}`);
          return;
        }
        if (key === 'severity' && !isOneOf(SEVERITIES, v.trim())) problems.add(`${at}.severity is "${v}"; expected one of ${oneOf(SEVERITIES)}`, `set "severity" in ${at}`);
        if (key === 'location' && /[`\r\n]/.test(v)) problems.add(`${at}.location must be one line without backticks`, 'write it as path/to/file:line');
        // CR too: a lone CR left inside one line would let that line escape guardLines
        const [first, ...rest] = splitValue(v.trim()).map((x) => x.trim()).filter(Boolean);
        const shown = key === 'location' ? `\`${first}\`` : first;
        const lines = [`${n === 0 ? '- ' : '  '}**${label}**: ${shown}`, ...rest.map((x) => `    ${x}`)];
        // the parser's own pattern: `**Label**:`, `**Label:**` and a bare `**Label**` all start a field
        if (lines.slice(1).some((x) => SUB.test(x))) problems.add(`${at}.${key} has a continuation line starting with **bold** text, which parse reads as a new finding field`, `reword the line in ${at}.${key} so it does not start with **...**`);
        guardLines(lines, at, problems);
        appendAll(out, lines);
      });
    });
    return out;
  },
  isEmpty: (value) => value === undefined || value === null,
};
