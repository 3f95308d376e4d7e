/**
 * What `sf observe install` tells the user before anything changes: what the default,
 * metadata-only collection sends, what never leaves the machine, and what the separate, optional
 * content collection (`--content`) would add and unlock.
 */
export const METADATA_ONLY = [
  'What Forge observability collects by default (metadata only):',
  '  - skill, SKIT and release ids (a SKIT from git: its ref and source commit), content and bundle hashes, where the',
  '    skill came from (forge, git, url, local)',
  '  - activation phases and results (selected, loaded, failed, blocked), trigger and selector types, durations and counts',
  '  - host name and version, adapter version, host session ids and turn ids, tool names and action types',
  '  - pseudonymous repository, worktree and workspace fingerprints (keyed hashes; the key never leaves this machine)',
  '  - install, enable, disable and remove events of your SKITs, and interventions linked to the skill\'s last use',
  'Never sent by default: prompts, model responses, tool arguments and output, file paths, diffs, repository remotes,',
  'the commits of your repositories, error messages. Hosts send their native telemetry only to the observer on',
  '127.0.0.1, which drops that content before anything is queued for a destination.',
];

export const CONTENT_OPT_IN = [
  'Optional content collection (--content, off unless you pass it):',
  '  - adds the local path each skill was loaded from and the current commit of the session\'s repository to events,',
  '    and keeps everything hosts put on the tool spans Forge exports: tool arguments and results, span events',
  '  - unlocks: tying activations to exact commits and skill files in change-outcome and attribution views, and',
  '    telling apart two copies of a skill with the same name',
  '  - risk: local paths (which can contain user and project names), commit ids and what tools were given and',
  '    returned reach every destination you configure',
];
