/**
 * Command families of `sf`. Each family lives in its own folder under cli/commands/ with one file
 * per subcommand; handlers stay thin and lazy-import heavy modules so `--help` and fast reads
 * stay fast. A family is imported only when the command line names it (`sf skit list` never loads
 * the observer, forge or hub commands); help, --version and unknown names load every family, so
 * their output is unchanged. Register a family with one line: `name: async () => (await
 * import('./name/index.js')).nameFamily(),`.
 */
const FAMILIES = {
  add: async () => (await import('./add/index.js')).addFamily(),
  skit: async () => (await import('./skit/index.js')).skitFamily(),
  hub: async () => (await import('./hub/index.js')).hubFamily(),
  forge: async () => (await import('./forge/index.js')).forgeFamily(),
  observe: async () => (await import('./observe/index.js')).observeFamily(),
  login: async () => (await import('./account/index.js')).loginCommand,
  logout: async () => (await import('./account/index.js')).logoutCommand,
};

type FamilyName = keyof typeof FAMILIES;
type Family = Awaited<ReturnType<(typeof FAMILIES)[FamilyName]>>;

/** The families `argv` (process.argv) needs: the one its first argument names, else all of them. */
export async function families(argv: readonly string[]): Promise<Record<string, Family>> {
  const first = argv[2];
  const names = first !== undefined && Object.hasOwn(FAMILIES, first) ? [first as FamilyName] : (Object.keys(FAMILIES) as FamilyName[]);
  const loaded = await Promise.all(names.map((name) => FAMILIES[name]()));
  return Object.fromEntries(names.map((name, i) => [name, loaded[i]]));
}
