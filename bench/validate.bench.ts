import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { validateSkitDir } from '../core/skit/validate.js';
import { walkTree } from '../core/skit/tree.js';
import { benchTempDir, median, ms, ratio, report, timeIt } from './support.js';

/**
 * `sf skit validate` on a SKIT with 1,000 skills (issue target: under 2 s). Baseline, same run:
 * walking the tree and reading every file in full, i.e. the IO floor any validator pays.
 */

const SKILLS = 1_000;
const RUNS = 5;
const TARGET_MS = 2_000;

const name = (i: number) => `skill-${String(i).padStart(4, '0')}`;

function readme(): string {
  const lines = ['---', 'skit: 1', 'id: bench/thousand', 'skills:'];
  for (let i = 0; i < SKILLS; i++) {
    lines.push(
      `  - name: ${name(i)}`,
      `    path: skills/${name(i)}`,
      '    default_enabled: true',
      '    trigger_modes: [explicit, implicit]',
      '    mutation_scopes: [working_tree]',
      '    capabilities: [filesystem.read, filesystem.write]',
      '    approval_expectations:',
      '      - capability: filesystem.write',
      '        approval: required',
      '    expected_outputs: [a patch]',
      '    shared:',
      '      - from: shared/references/common',
      '        to: references/common',
    );
  }
  lines.push('capabilities:', '  executables:');
  for (let i = 0; i < SKILLS; i += 10) lines.push(`    - skills/${name(i)}/scripts/run.sh`);
  lines.push('  hooks: [hooks/observe.json]', '  mcp: []', '---', '', '# Bench SKIT', '');
  return lines.join('\n');
}

async function generate(root: string): Promise<number> {
  const files: [string, string, number?][] = [
    ['README.md', readme()],
    ['hooks/observe.json', '{"hooks": {}}\n'],
    ['shared/references/common/style.md', '# Style\n\n' + 'Prefer small functions. '.repeat(40)],
    ['shared/references/common/checklist.md', '# Checklist\n\n' + '- [ ] item\n'.repeat(30)],
  ];
  for (let i = 0; i < SKILLS; i++) {
    const n = name(i);
    files.push([
      `skills/${n}/SKILL.md`,
      `---\nname: ${n}\ndescription: Bench skill ${i}. Use when the user asks for task ${i}; see references/notes.md.\nlicense: MIT\nmetadata:\n  observability/skit-id: bench/thousand\n---\n\n# ${n}\n\n1. Read [the notes](references/notes.md).\n2. Follow [the style](references/common/style.md).\n`,
    ]);
    files.push([`skills/${n}/references/notes.md`, `# Notes ${i}\n\n` + 'Some reference text. '.repeat(50)]);
    if (i % 10 === 0) files.push([`skills/${n}/scripts/run.sh`, '#!/bin/sh\necho run\n', 0o755]);
  }
  for (const [rel, content, mode] of files) {
    const abs = join(root, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
    if (mode) await chmod(abs, mode);
  }
  return files.length;
}

async function baseline(root: string): Promise<void> {
  const tree = await walkTree(root);
  let next = 0;
  const worker = async () => {
    while (next < tree.files.length) await readFile(tree.files[next++].abs);
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}

export default {
  name: 'validate a SKIT with 1,000 skills',
  async run(): Promise<void> {
    const dir = await benchTempDir('sf-bench-validate-');
    try {
      const fileCount = await generate(dir.path);
      const first = await validateSkitDir(dir.path);
      if (!first.ok || first.layout?.skills.length !== SKILLS) {
        throw new Error(`the generated SKIT does not validate: ${JSON.stringify(first.diagnostics.slice(0, 3))}`);
      }
      await baseline(dir.path);
      const validateTimes: number[] = [];
      const baseTimes: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        baseTimes.push(await timeIt(() => baseline(dir.path)));
        validateTimes.push(await timeIt(() => validateSkitDir(dir.path)));
      }
      const v = median(validateTimes);
      const b = median(baseTimes);
      report([
        ['tree', `${SKILLS} skills, ${fileCount} files, ${first.diagnostics.length} diagnostics`],
        ['baseline: walk + read every file', ms(b)],
        ['validateSkitDir (median of 5)', `${ms(v)}  (target < ${TARGET_MS} ms: ${v < TARGET_MS ? 'met' : 'NOT met'})`],
        ['ratio validate / baseline', ratio(v, b)],
      ]);
    } finally {
      await dir.cleanup();
    }
  },
};
