/**
 * The `sf` process for `sf skit hash` and `sf skit validate` alone (dist/cli/sf-skit-read.cjs is
 * built from this file; cli/sf.cts runs it for those two commands). Its bundle holds only what
 * they need, a quarter of the whole CLI, so it reads, checks and deserializes less before the
 * command starts: ~9 ms of the hash that is measured against openssl.
 */
import { runApp } from './app.js';
import { skitReadFamily } from './commands/skit/read-family.js';
import { startCli } from './process.js';

startCli((argv) => runApp({ skit: skitReadFamily() }, argv), { exitWhenDone: true });
