import { CONFIDENCE_LEVELS, INVESTIGATION_VERDICTS, TASK_TYPES, TRAJECTORY_PHASES, isOneOf } from '../enums.js';
import { oneOf } from '../template/guard.js';
import { tableCodec } from '../template/codecs-table.js';
import type { CheckReport, TemplateSpec } from '../template/spec.js';

/**
 * `FORGE:TRAJECTORY` (4.1): the audit trail of a completed run. The spec states no completion
 * sentinel (its own worked example has none) and no required fields: a missing phase table,
 * Decisions, Anomalies or Completed line is a warning and does not decide completion.
 */
export const trajectoryTemplate: TemplateSpec = {
  type: 'TRAJECTORY',
  title: { text: 'Pipeline Trajectory — #{number}', key: 'number', keyKind: 'int' },
  preamble: [
    {
      kind: 'table',
      key: 'phases',
      label: 'Phase',
      codec: tableCodec({
        columns: [
          { key: 'phase', header: 'Phase' },
          { key: 'result', header: 'Result' },
          { key: 'notes', header: 'Notes' },
        ],
      }),
    },
    {
      kind: 'fields',
      fields: [
        { key: 'decisions', label: 'Decisions', kind: 'text' },
        { key: 'anomalies', label: 'Anomalies', kind: 'text' },
        { key: 'completed', label: 'Completed', kind: 'iso' },
      ],
    },
  ],
  sections: [],
  required: [],
  expected: ['number', 'phases', 'decisions', 'anomalies', 'completed'],
  check(fields, report) {
    if (!Array.isArray(fields.phases)) return;
    for (const row of fields.phases as Record<string, unknown>[]) {
      if (typeof row?.phase !== 'string') continue;
      if (!isOneOf(TRAJECTORY_PHASES, row.phase)) {
        report('info', 'FORGE_PHASE_UNKNOWN', `phase "${row.phase}" is not one of the spec's phases (${oneOf(TRAJECTORY_PHASES)})`);
      }
      if (row.phase === 'Investigation') checkInvestigationRow(row, report);
    }
  },
};

/** The Investigation row reads `{VERDICT} ({CONFIDENCE})` and `Task type: {TASK_TYPE}`. */
function checkInvestigationRow(row: Record<string, unknown>, report: CheckReport): void {
  const m = typeof row.result === 'string' ? /^(\S+)\s+\((\S+)\)$/.exec(row.result) : null;
  if (m) {
    if (!isOneOf(INVESTIGATION_VERDICTS, m[1])) report('error', 'FORGE_ENUM_INVALID', `Investigation verdict is "${m[1]}"; expected one of ${oneOf(INVESTIGATION_VERDICTS)}`, 'write the result as VERDICT (CONFIDENCE)');
    if (!isOneOf(CONFIDENCE_LEVELS, m[2])) report('error', 'FORGE_ENUM_INVALID', `Investigation confidence is "${m[2]}"; expected one of ${oneOf(CONFIDENCE_LEVELS)}`, 'write the result as VERDICT (CONFIDENCE)');
  } else if (typeof row.result === 'string') {
    report('warning', 'FORGE_VALUE_NONCANONICAL', `Investigation result "${row.result}" is not "{VERDICT} ({CONFIDENCE})"`);
  }
  const t = typeof row.notes === 'string' ? /^Task type:\s*(.+)$/i.exec(row.notes) : null;
  if (t && !isOneOf(TASK_TYPES, t[1].trim())) report('error', 'FORGE_ENUM_INVALID', `Investigation task type is "${t[1].trim()}"; expected one of ${oneOf(TASK_TYPES)}`, 'use one of the task types');
}
