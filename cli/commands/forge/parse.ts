import { command, flag, optional, positional, string } from 'cmd-ts';
import { hasErrors } from '../../../core/errors/index.js';
import { out, printJson, printTable } from '../../output/print.js';
import { printForgeDiagnostics } from './diagnostics.js';
import { inputSubject, readInputChecked } from './input.js';
import { headline, statusText, threadSize, where } from './summary.js';

export const parseCommand = command({
  name: 'parse',
  description: 'Parse FORGE annotations from a comments array (GitHub, Gitea, GitLab, gh --json) or a Markdown body',
  args: {
    file: positional({ type: optional(string), displayName: 'file|-', description: 'comments JSON or Markdown file; - or omitted for stdin' }),
    json: flag({ long: 'json', description: 'print the annotations and diagnostics as JSON' }),
  },
  handler: async ({ file, json }) => {
    const { readThreadInput, parseThread } = await import('../../../core/annotations/index.js');
    const raw = await readInputChecked(file ?? '-', 'comments');
    const input = readThreadInput(raw.text);
    const parsed = parseThread(input.comments);
    const inputDiagnostics = [...raw.diagnostics, ...input.diagnostics];
    const diagnostics = [...inputDiagnostics, ...parsed.diagnostics, ...parsed.annotations.flatMap((a) => a.diagnostics)];
    if (json) {
      const issueBody = input.comments.some((c) => c.issueBody);
      printJson({ platform: input.platform, comments: input.comments.length - Number(issueBody), issueBody, annotations: parsed.annotations, diagnostics: [...inputDiagnostics, ...parsed.diagnostics] });
    } else {
      out(`${parsed.annotations.length} annotation${parsed.annotations.length === 1 ? '' : 's'} in ${threadSize(input.comments)} (${input.platform})`);
      if (parsed.annotations.length) {
        printTable(
          ['TAG', 'STATUS', 'WHERE', 'FIELDS'],
          parsed.annotations.map((a) => [a.tag + (a.kind === 'unknown' ? ' (unknown)' : ''), statusText(a), where(a), headline(a)]),
        );
      }
      if (diagnostics.length) printForgeDiagnostics(diagnostics.filter((d) => d.severity !== 'info'), inputSubject(file ?? '-'));
    }
    if (hasErrors(diagnostics)) process.exitCode = 1;
  },
});
