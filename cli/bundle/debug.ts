import { createRequire } from 'node:module';

/**
 * The `debug` package as the CLI bundles see it (scripts/build.mjs): cmd-ts creates a debugger
 * when it loads, and the real package then asks whether stderr is a terminal, which creates
 * process.stderr (a net.Socket on a pipe) and loads net and tty: 3-5 ms of every command. Here
 * the real package is loaded only when DEBUG is set; otherwise every debugger is off.
 */

interface Debugger {
  (...args: unknown[]): void;
  enabled: boolean;
  namespace: string;
  extend(namespace: string, delimiter?: string): Debugger;
}

const off = (namespace: string): Debugger =>
  Object.assign(() => undefined, { enabled: false, namespace, extend: (sub: string, delimiter = ':') => off(`${namespace}${delimiter}${sub}`) });

function realDebug(): unknown {
  try {
    return createRequire(import.meta.url)('debug');
  } catch {
    return undefined;
  }
}

const createDebug = (process.env.DEBUG ? realDebug() : undefined) ?? Object.assign(off, { enable: () => undefined, disable: () => '', enabled: () => false });

export default createDebug;
