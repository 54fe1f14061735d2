/**
 * Prints one closing line, `tests: N passed, N failed, N skipped`, after vitest's own report, so CI
 * logs end with a count any reader (or tool) understands. A run that failed before any test (a
 * globalSetup that threw: setup-failure.ts) counts each such failure and says it on a line of its own.
 */
import type { Reporter, TestModule, TestRunEndReason } from 'vitest/node';
import { readSetupFailures } from './setup-failure.js';

export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>, reason: TestRunEndReason): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed outside any test (a hook, an import) counts as one failure.
      if (mod.state() === 'failed' && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    failed += unhandledErrors.length;
    const setupFailures = readSetupFailures();
    failed += setupFailures.length;
    const lines = [`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`, ...setupFailures.map((f) => `setup: ${f}`)];
    if (reason === 'failed' && failed === 0) lines.push('the run failed without a failed test (no test file ran: see the report above)');
    process.stdout.write(`\n${lines.join('\n')}\n`);
    if (setupFailures.length > 0) process.exitCode = 1;
  }
}
