#!/usr/bin/env node
import { main } from './main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`internal error[SF_E_INTERNAL]: ${String(e)}\n`);
    process.exitCode = 10;
  },
);
