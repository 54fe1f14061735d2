/** `order-batch demo` (`npm start`): the whole loop on the embedded sandbox, with the samples shipped in the package. */
import type { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, resolveFlags } from './command-options.js';

/** samples/ at the package root, from src/cli or dist/cli alike. */
const SAMPLES_DIR = fileURLToPath(new URL('../../samples', import.meta.url));

export function addDemoCommand(program: Command, run: CliRun): void {
  program
    .command('demo')
    .description('the whole loop on the embedded sandbox: import the samples, let them ship, reconcile (npm start)')
    .option('--out <dir>', 'where the demo writes its files', 'demo-output')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', 'warn')
    .action(async (flags: RawFlags) => {
      const options = resolveFlags(flags);
      const [{ runDemo }, { openLedger }] = await Promise.all([import('../demo/run-demo.js'), import('../ledger/index.js')]);
      const logger = loggerFor(options);
      await runDemo({
        samplesDir: SAMPLES_DIR,
        outDir: options.out ?? 'demo-output',
        logger,
        // The demo's own ledger, made fresh in its folder: opened once, for the import and the reconcile.
        openLedger: (path) => openLedger(path, { logger }),
        print: (line) => run.printLine(line),
      });
    });
}
