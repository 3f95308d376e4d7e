/**
 * The read-only SKIT commands with a CLI entry of their own (cli/run-skit-read.ts): `sf skit hash`
 * and `sf skit validate`. CommonJS so that cli/sf.cts, which picks the entry, can require it;
 * cli/run.ts imports it too (they exit as soon as their output is flushed).
 */
export const isSkitRead = (argv: readonly string[]): boolean => argv[2] === 'skit' && (argv[3] === 'hash' || argv[3] === 'validate');
