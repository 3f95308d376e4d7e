import { isTerminalFd } from '../output/stdio.js';

/**
 * node:tty as cmd-ts's bundled chalk sees it in the CLI bundles (scripts/build.mjs): its
 * supports-color asks `tty.isatty(1)` and `tty.isatty(2)` when it loads, and loading node:tty
 * (with net) for that cost every command 2-4 ms. isatty is all it uses.
 */
export default { isatty: isTerminalFd };
