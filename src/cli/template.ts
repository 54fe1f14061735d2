/** `order-batch template`: write the blank order template and print where it went. */
import { Option, type Command } from 'commander';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { resolveFlags } from './command-options.js';
import { exitOnSignal } from './signals.js';

export function addTemplateCommand(program: Command, run: CliRun): void {
  program
    .command('template')
    .description('write the blank order template')
    .addOption(new Option('--format <format>', 'xlsx or csv (default: from --out, else xlsx)').choices(['xlsx', 'csv']))
    .option('--out <path>', 'where to write it (default order-template.xlsx or .csv)')
    .option('--config <file>', 'JSON config file (its sourcesOfSale feed the dropdown)')
    .action(async (flags: RawFlags & { format?: 'xlsx' | 'csv' }) => {
      exitOnSignal();
      const options = resolveFlags(flags);
      const { templateCommand } = await import('../output-files/template.js');
      const path = await templateCommand({ format: flags.format, out: options.out, sourcesOfSale: options.sourcesOfSale });
      run.printLine(path);
    });
}
