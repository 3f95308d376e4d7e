import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { SfError } from '../../../core/errors/index.js';
import { out, printJson } from '../../output/print.js';
import { sanitize } from '../../output/style.js';
import { printForgeDiagnostics } from './diagnostics.js';
import { inputSubject, readInputChecked, readJson } from './input.js';

export const checkCommand = command({
  name: 'check',
  description: 'Conformance check (spec 7.3): required annotations present and complete, labels, context chain',
  args: {
    file: positional({ type: string, displayName: 'comments.json|-', description: 'comments array, `sf forge fetch --json` output, or a Markdown body' }),
    require: option({ long: 'require', type: optional(string), description: 'comma-separated types (default: INVESTIGATOR,CONTRACT,CONTEXT,ARCHITECT,BUILDER,TRAJECTORY)' }),
    labels: option({ long: 'labels', type: optional(string), description: 'labels file (JSON: [{"name": ...}], ["..."] or {"labels": [...]}; - for stdin); default: the labels of a `sf forge fetch --json` input' }),
    json: flag({ long: 'json', description: 'print the report as JSON' }),
  },
  handler: async ({ file, require, labels, json }) => {
    const core = await import('../../../core/annotations/index.js');
    let required: string[] | undefined;
    if (require !== undefined) {
      const { types, invalid } = core.parseRequireList(require);
      if (invalid.length || types.length === 0) {
        throw new SfError('SF_E_USAGE', `--require has ${invalid.length ? `invalid entries: ${invalid.join(', ')}` : 'no types'}`, { hint: 'e.g. --require INVESTIGATOR,BUILDER,TRAJECTORY' });
      }
      required = types;
    }
    if (file === '-' && labels === '-') throw new SfError('SF_E_USAGE', 'the comments and --labels cannot both be read from stdin (-)', { hint: 'give one of them as a file, e.g. sf forge check - --labels labels.json' });
    const raw = await readInputChecked(file, 'comments');
    const input = core.readThreadInput(raw.text);
    // what went wrong reading the input (not UTF-8, broken JSON read as Markdown) is shown with the report
    const inputDiagnostics = [...raw.diagnostics, ...input.diagnostics];
    const labelList = labels !== undefined ? core.normalizeLabels(await readJson(labels, 'labels')) : input.labels;
    const parsed = core.parseThread(input.comments);
    const report = core.runConformanceCheck(parsed, { require: required, labels: labelList });
    if (json) {
      printJson({ ...report, diagnostics: [...inputDiagnostics, ...report.diagnostics] });
    } else {
      for (const line of core.formatConformanceReport(report)) out(sanitize(line));
      // errors of required types, and content hidden from readers in any annotation: it is not trusted
      const errors = parsed.annotations.flatMap((a) => a.diagnostics.filter((d) => d.severity === 'error' && (report.required.includes(a.type) || core.hasHiddenContent(a))));
      const shown = [...inputDiagnostics, ...errors, ...report.diagnostics];
      if (shown.length) printForgeDiagnostics(shown, inputSubject(file));
    }
    if (!report.ok) process.exitCode = 1;
  },
});
