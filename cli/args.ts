import { option as cmdOption, optional, string, subcommands as cmdSubcommands, type Type } from 'cmd-ts';
import { SfError } from '../core/errors/index.js';

/**
 * cmd-ts's `option`, except that an option given without a value (or an empty one) is an error. cmd-ts falls back
 * to the option's default then, so `sf skit remove acme/kit --agent` (the value forgotten) acted
 * on every agent. Every command imports `option` from here, not from cmd-ts.
 */
export const option: typeof cmdOption = ((config: Parameters<typeof cmdOption>[0]) => {
  const inner = cmdOption(config);
  return {
    ...inner,
    async parse(context: Parameters<typeof inner.parse>[0]) {
      const given = context.nodes.filter(
        (n) => (n.type === 'longOption' && n.key === config.long) || (n.type === 'shortOption' && config.short !== undefined && n.key === config.short),
      );
      // an empty or blank value (`--version "$V"` with V unset) is no value either
      const bare = given.find((n) => !((n as { value?: { node?: { raw?: string } } }).value?.node?.raw ?? '').trim());
      if (bare) {
        return { _tag: 'error' as const, error: { errors: [{ nodes: [bare], message: `No value provided for --${config.long} (give one, e.g. --${config.long} <value>, or leave the option out)` }] } };
      }
      return inner.parse(context);
    },
  };
}) as typeof cmdOption;

/**
 * A whole number option: digits only, in `min`..`max`. cmd-ts's `number` is `Number.parseFloat`,
 * which read `--issue 5abc` as issue 5, `--port 8080abc` as 8080 and `--issue 1e2` as 100. The
 * error quotes the word as typed (cli/parse-problem.ts puts the option in front of it); `what`
 * names the range in it (`a TCP port`). Every numeric option uses this type, not cmd-ts's `number`.
 */
export function integer(range: { min?: number; max?: number; what?: string } = {}): Type<string, number> {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const span = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `${min}-${max}`;
  return {
    displayName: 'integer',
    description: `a whole number (${span})`,
    async from(raw: string) {
      const quoted = JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}...` : raw);
      // a value past 15 digits is out of any range here, and Number() would round it
      if (!/^\d+$/.test(raw)) throw new Error(`${quoted} is not a whole number (digits only, ${span})`);
      const n = raw.length > 15 ? Number.POSITIVE_INFINITY : Number(raw);
      if (n < min || n > max) throw new Error(`${quoted} is ${range.what ? `not ${range.what}` : 'out of range'} (${span})`);
      return n;
    },
  };
}

const familyCommands = new WeakMap<object, Record<string, unknown>>();

/**
 * cmd-ts's `subcommands`, remembering its commands so that cli/app.ts can name an unknown
 * subcommand before cmd-ts parses (cmd-ts answers `sf observe explain --help` with the family's
 * help and exit 0, and its own error does not say which word was wrong). Every family imports
 * `subcommands` from here.
 */
export const subcommands: typeof cmdSubcommands = ((config: Parameters<typeof cmdSubcommands>[0]) => {
  const family = cmdSubcommands(config);
  familyCommands.set(family, config.cmds);
  return family;
}) as typeof cmdSubcommands;

/** The subcommands of a family made by `subcommands` above; undefined for a single command. */
export function commandsOf(node: unknown): Record<string, unknown> | undefined {
  return typeof node === 'object' && node !== null ? familyCommands.get(node) : undefined;
}

/**
 * `--agent` and `--agents` as one option: the install family took `--agent`, `sf observe` took
 * `--agents`, so each command now accepts both. `primary` is the name its help leads with; read
 * the value with `agentOption`.
 */
export function agentOptions(primary: 'agent' | 'agents', description: string) {
  // the alias's help points at the name the command leads with
  const alias = `the same as --${primary}`;
  return {
    agent: option({ long: 'agent', type: optional(string), description: primary === 'agent' ? description : alias }),
    agents: option({ long: 'agents', type: optional(string), description: primary === 'agents' ? description : alias }),
  };
}

/** The value of `--agent` or `--agents`; refuses both at once (which one would win is not obvious). */
export function agentOption(a: { agent?: string; agents?: string }): string | undefined {
  if (a.agent !== undefined && a.agents !== undefined) {
    throw new SfError('SF_E_USAGE', `--agent ${a.agent} and --agents ${a.agents} given: they are the same option`, { hint: 'give it once, with every agent in a comma-separated list, e.g. --agent claude-code,codex' });
  }
  return a.agent ?? a.agents;
}
