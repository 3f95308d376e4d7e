/** Reads of each named LMDB database: `get` calls and `getRange` scans started. */
export interface LmdbReads {
  gets(db: string): number;
  ranges(db: string): number;
  reset(): void;
  restore(): void;
}

type Store = { name?: string | null; get(...a: unknown[]): unknown; getRange(...a: unknown[]): unknown };

const isStore = (v: unknown): v is Store => typeof v === 'object' && v !== null && typeof (v as Store).getRange === 'function' && 'name' in v;

/**
 * The prototype that defines `method` for the lmdb databases `holder` keeps (each lmdb `open()`
 * makes its own classes, so it is found through a database of the environment, not imported).
 */
function definingPrototype(holder: object, method: 'get' | 'getRange'): Store {
  const db = Object.values(holder).find(isStore);
  if (!db) throw new Error('countLmdbReads: the object holds no lmdb database');
  let proto = Object.getPrototypeOf(db);
  while (proto && !Object.prototype.hasOwnProperty.call(proto, method)) proto = Object.getPrototypeOf(proto);
  return proto as Store;
}

/**
 * Counts reads per database of the lmdb environment whose databases `holder` keeps (e.g. the
 * embedded registry store); the real calls still run. Tests assert how much of the registry an
 * operation reads, which unlike its time does not depend on the machine.
 */
export function countLmdbReads(holder: object): LmdbReads {
  const counts = { get: new Map<string, number>(), getRange: new Map<string, number>() };
  const originals: [Store, 'get' | 'getRange', Store['get']][] = [];
  for (const method of ['get', 'getRange'] as const) {
    const proto = definingPrototype(holder, method);
    const original = proto[method];
    originals.push([proto, method, original]);
    proto[method] = function (this: Store, ...args: unknown[]) {
      const name = this.name ?? '';
      counts[method].set(name, (counts[method].get(name) ?? 0) + 1);
      return original.apply(this, args);
    };
  }
  return {
    gets: (db) => counts.get.get(db) ?? 0,
    ranges: (db) => counts.getRange.get(db) ?? 0,
    reset: () => {
      counts.get.clear();
      counts.getRange.clear();
    },
    restore: () => {
      for (const [proto, method, original] of originals) proto[method] = original;
    },
  };
}
