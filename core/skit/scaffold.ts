/**
 * The files `sf skit init` writes: a valid two-skill SKIT. Pure: returns relative path -> content.
 */
export interface ScaffoldOptions {
  /** SKIT id owner/name */
  id: string;
}

export function scaffoldSkit({ id }: ScaffoldOptions): Record<string, string> {
  const name = id.split('/')[1] ?? 'my-skit';
  const readme = `---
skit: 1
id: ${id}
skills:
  - name: review
    path: skills/review
    default_enabled: true
    trigger_modes: [explicit, implicit]
    mutation_scopes: [none]
    capabilities: [filesystem.read]
    approval_expectations: []
    expected_outputs: [review findings ordered by severity]
    shared:
      - from: shared/references/style
        to: references/style
  - name: summarize
    path: skills/summarize
    default_enabled: true
    trigger_modes: [explicit]
    mutation_scopes: [none]
    capabilities: [filesystem.read]
    approval_expectations: []
    expected_outputs: [a three-line pull-request summary]
capabilities:
  executables: []
  hooks: []
  mcp: []
---

# ${name}

A SKIT (skill kit) with two contained skills:

- \`${id}:review\` reviews a change against the shared style notes.
- \`${id}:summarize\` summarizes a change for a pull-request description.

Validate with \`sf skit validate\`, hash with \`sf skit hash\`, pack with \`sf skit pack -o ${name}.tgz\`.
`;
  const skill = (skillName: string, description: string, body: string) => `---
name: ${skillName}
description: ${description}
---

${body}
`;
  return {
    'README.md': readme,
    'skills/review/SKILL.md': skill(
      'review',
      'Review a code change for correctness and style. Use when the user asks for a review of a diff or pull request.',
      '# Review\n\n1. Read the diff.\n2. Check it against references/style/guide.md.\n3. Report findings by severity.',
    ),
    'skills/summarize/SKILL.md': skill(
      'summarize',
      'Summarize a code change for a pull-request description. Use when the user asks for a summary of their changes.',
      '# Summarize\n\nWrite a three-line summary: what changed, why, and how it was tested.',
    ),
    'shared/references/style/guide.md': '# Style guide\n\n- Small functions with one job.\n- Names that explain themselves.\n',
  };
}
