/** `order-batch mapping suggest <file>` and `mapping list`: flags to the command functions, printed. */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describeFileSystemError, UsageError } from '../errors.js';
import type { CliRun } from './cli-run.js';

export function addMappingCommand(program: Command, run: CliRun): void {
  const mapping = program.command('mapping').description('mapping profiles: how the columns of a marketplace export feed the order fields');

  mapping
    .command('suggest')
    .description('print a draft mapping profile for a sheet: the best guess for each field and what is still missing')
    .argument('<file>', 'a CSV or XLSX sheet (an export whose columns are not the template\'s)')
    .option('--sheet <name>', 'worksheet of an xlsx file')
    .option('--out <file>', 'write the draft profile to this file instead of stdout')
    .action(async (file: string, flags: { sheet?: string; out?: string }) => {
      const { suggestMapping } = await import('../commands/mapping.js');
      const result = await suggestMapping(file, flags.sheet === undefined ? {} : { sheet: flags.sheet });
      for (const line of result.summary) process.stderr.write(`${line}\n`);
      if (flags.out === undefined) {
        process.stdout.write(result.json);
      } else {
        try {
          writeFileSync(flags.out, result.json);
        } catch (error) {
          throw new UsageError(`Cannot write ${flags.out}: ${describeFileSystemError(error)}.`);
        }
        process.stderr.write(`Draft written to ${flags.out}.\n`);
      }
      run.exitCode = result.draft.missing.length > 0 ? 1 : 0;
    });

  mapping
    .command('list')
    .description('the mapping profiles --mapping can name')
    .option('--json', 'print them as JSON')
    .action(async (flags: { json?: boolean }) => {
      const { listMappings } = await import('../commands/mapping.js');
      const profiles = listMappings();
      if (flags.json) run.printJson(profiles);
      else for (const p of profiles) run.printLine(`${p.name.padEnd(14)} ${p.label} (${p.origin})`);
    });
}
