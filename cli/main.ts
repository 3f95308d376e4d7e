import { families } from './commands/index.js';
import { runApp } from './app.js';

/** `sf` with every command family (each loaded only when the command line names it). */
export async function main(argv: string[]): Promise<number> {
  return runApp(await families(argv), argv);
}
