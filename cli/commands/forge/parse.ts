import { command, flag, optional, positional, string } from 'cmd-ts';
import { hasErrors } from '../../../core/errors/index.js';
import { out, printDiagnostics, printJson, printTable } from '../../output/print.js';
import { readInput } from './input.js';
import { headline, where } from './summary.js';

export const parseCommand = command({
  name: 'parse',
  description: 'Parse FORGE annotations from a comments array (GitHub, Gitea, GitLab, gh --json) or a Markdown body',
  args: {
    file: positional({ type: optional(string), displayName: 'file|-', description: 'comments JSON or Markdown file; - or omitted for stdin' }),
    json: flag({ long: 'json', description: 'print the annotations and diagnostics as JSON' }),
  },
  handler: async ({ file, json }) => {
    const { readThreadInput, parseThread } = await import('../../../core/annotations/index.js');
    const input = readThreadInput(await readInput(file ?? '-', 'comments'));
    const parsed = parseThread(input.comments);
    const diagnostics = [...input.diagnostics, ...parsed.diagnostics, ...parsed.annotations.flatMap((a) => a.diagnostics)];
    if (json) {
      printJson({ platform: input.platform, comments: input.comments.length, annotations: parsed.annotations, diagnostics: [...input.diagnostics, ...parsed.diagnostics] });
    } else {
      out(`${parsed.annotations.length} annotation${parsed.annotations.length === 1 ? '' : 's'} in ${input.comments.length} comment${input.comments.length === 1 ? '' : 's'} (${input.platform})`);
      if (parsed.annotations.length) {
        printTable(
          ['TAG', 'STATUS', 'WHERE', 'FIELDS'],
          parsed.annotations.map((a) => [a.tag + (a.kind === 'unknown' ? ' (unknown)' : ''), a.status + (a.completion && a.completion !== 'sentinel' ? ` (${a.completion})` : ''), where(a), headline(a)]),
        );
      }
      if (diagnostics.length) printDiagnostics(diagnostics.filter((d) => d.severity !== 'info'));
    }
    if (hasErrors(diagnostics)) process.exitCode = 1;
  },
});
