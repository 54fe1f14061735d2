/** `order-batch ledger copy <from> <to>`: move a ledger between SQLite and PostgreSQL, and print what moved. */
import type { Command } from 'commander';
import type { CopyCounts, CopyResult } from '../ledger/copy/copy-ledger.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, resolveFlags } from './command-options.js';
import { exitOnSignal } from './signals.js';

function describeCounts(counts: CopyCounts): string {
  const parts = [`${counts.insert} copied`];
  if (counts.update > 0) parts.push(`${counts.update} updated`);
  if (counts.unchanged > 0) parts.push(`${counts.unchanged} already there`);
  if (counts.kept > 0) parts.push(`${counts.kept} kept as the target has them`);
  return parts.join(', ');
}

export function formatCopy(result: CopyResult): string {
  return [
    `Copied the ledger ${result.from} into ${result.to} (the source is unchanged).`,
    `  orders      ${describeCounts(result.orders)}`,
    `  runs        ${describeCounts(result.runs)}`,
    `  settings    ${describeCounts(result.settings)}`,
    `  watermarks  ${describeCounts(result.watermarks)}`,
    `  accounts    ${describeCounts(result.users)}`,
    `  audit       ${describeCounts(result.audit)}`,
    `  mappings    ${describeCounts(result.mappings)}`,
    '',
  ].join('\n');
}

export function addLedgerCommand(program: Command, run: CliRun): void {
  const ledger = program.command('ledger').description('work on a ledger itself (see `ledger copy --help`)');
  ledger
    .command('copy <from> <to>')
    .description(
      'copy a ledger (a file path: SQLite; a postgres:// URL: PostgreSQL) into another, either way; ' +
        'running it again copies only what changed, and it never overwrites another order of the same id',
    )
    .option('--json', 'print the counts as JSON on stdout')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent')
    .action(async (from: string, to: string, flags: RawFlags) => {
      exitOnSignal();
      const options = resolveFlags(flags);
      const { copyLedger } = await import('../ledger/copy/copy-ledger.js');
      const result = await copyLedger(from, to, { logger: loggerFor(options) });
      if (options.json) await run.printJson({ command: 'ledger copy', ...result });
      else process.stdout.write(formatCopy(result));
    });
}
