// Mocha's dot reporter plus one plain closing line ("N passed, N failed, N skipped") that CI reads.
const Mocha = require('mocha');

class ForgeReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const s = runner.stats;
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
    });
  }
}
module.exports = ForgeReporter;
