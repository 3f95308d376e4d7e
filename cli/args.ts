import { option as cmdOption } from 'cmd-ts';

/**
 * cmd-ts's `option`, except that an option given without a value is an error. cmd-ts falls back
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
      const bare = given.find((n) => !(n as { value?: unknown }).value);
      if (bare) {
        return { _tag: 'error' as const, error: { errors: [{ nodes: [bare], message: `No value provided for --${config.long} (give one, e.g. --${config.long} <value>, or leave the option out)` }] } };
      }
      return inner.parse(context);
    },
  };
}) as typeof cmdOption;
