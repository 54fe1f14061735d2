/**
 * `order-batch ledger copy <from> <to>`: move a ledger between SQLite and PostgreSQL, and print what
 * moved. `ledger show`: what a ledger is and holds. `ledger set team-concurrency N|off`: the team's cap.
 */
import type { Command } from 'commander';
import type { LedgerShow, TeamCapSet } from '../ledger-settings/ledger-settings.js';
import type { CopyCounts, CopyResult } from '../ledger/index.js';
import { UsageError } from '../errors.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, resolveFlags } from './command-options.js';
import { exitOnSignal } from './signals.js';
import { openCommandLedger, openExistingLedger, withCommandLedger } from './cli-ledger.js';

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
    `  api tokens  ${describeCounts(result.tokens)}`,
    `  audit       ${describeCounts(result.audit)}`,
    `  mappings    ${describeCounts(result.mappings)}`,
    `  file claims ${describeCounts(result.remoteFiles)}`,
    `  occurrences ${describeCounts(result.occurrences)}`,
    '',
  ].join('\n');
}

function describeTeamCap(show: LedgerShow): string {
  const cap = show.teamConcurrency;
  if (show.backend === 'sqlite') {
    const kept = cap === null ? 'none' : `${cap} kept from a PostgreSQL ledger, not applied`;
    return `${kept} (a file ledger runs one import at a time: --concurrency bounds it)`;
  }
  if (cap === null) return 'none: each run is bounded by its own --concurrency (set one: order-batch ledger set team-concurrency N)';
  return `${cap} POSTs in flight across every run on the ledger, whatever their own options`;
}

export function formatShow(show: LedgerShow): string {
  const orders = Object.entries(show.orders).filter(([, n]) => n > 0).map(([state, n]) => `${n} ${state}`).join(', ') || 'none';
  const lines = [
    `Ledger ${show.ledger}`,
    `  backend           ${show.backend === 'postgres' ? 'PostgreSQL (shared by every host: several runs at once)' : 'SQLite file (one run at a time)'}`,
    `  schema version    ${show.schemaVersion}`,
    `  team concurrency  ${describeTeamCap(show)}`,
    `  claim lease       ${show.backend === 'postgres' ? `${show.claimLeaseSeconds} s for this host's runs (each run's own: --claim-lease, config claimLeaseSeconds)` : 'none (the run lock keeps other runs out)'}`,
    `  API               ${show.endpoint ?? 'none yet (the first run binds the ledger to its API)'}`,
    `  orders            ${orders}`,
    `  runs              ${show.runs}${show.liveRuns === null ? '' : ` (${show.liveRuns} going now)`}`,
    `  accounts          ${show.accounts}`,
    `  saved mappings    ${show.mappings}`,
    '',
  ];
  return lines.join('\n');
}

export function formatTeamCapSet(result: TeamCapSet): string {
  const was = result.previous === null ? 'none' : String(result.previous);
  if (result.teamConcurrency === null) {
    return `Removed the team's concurrency cap from the ledger ${result.ledger} (it was ${was}): each run is bounded by its own --concurrency. Runs going now apply it to their next request.`;
  }
  return (
    `The team's concurrency cap on the ledger ${result.ledger} is ${result.teamConcurrency} POSTs in flight across every run (it was ${was}). ` +
    "Runs going now apply it to their next request; a run's own --team-concurrency can only lower its share."
  );
}

export function addLedgerCommand(program: Command, run: CliRun): void {
  const ledger = program.command('ledger').description('work on a ledger itself: copy, show, set (see `ledger copy --help`)');
  ledger
    .command('show')
    .description("what the ledger is and holds: backend, schema version, the team's concurrency cap, claim lease, counts")
    .option('--ledger <path|url>', 'the ledger (default .order-batch/ledger.db, or a postgres:// URL)')
    .option('--config <file>', 'JSON config file (its ledger key)')
    .option('--json', 'print it as JSON on stdout')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent')
    .action(async (flags: RawFlags) => {
      const options = resolveFlags(flags);
      const { showLedger } = await import('../ledger-settings/ledger-settings.js');
      const { redactLedgerLocation } = await import('../ledger/index.js');
      // Looking never creates a ledger file.
      const ledger = await openExistingLedger(options, loggerFor(options));
      if (ledger === undefined) throw new UsageError(`There is no ledger at ${redactLedgerLocation(options.ledgerPath)} yet: the first import creates it.`);
      const show = await withCommandLedger(ledger, () => showLedger(ledger, { claimLeaseMs: options.claimLeaseMs }));
      if (options.json) await run.printJson({ command: 'ledger show', ...show });
      else process.stdout.write(formatShow(show));
    });
  ledger
    .command('set <setting> <value>')
    .description(
      "change a setting the ledger holds for every run on it, recorded in the audit trail. team-concurrency N|off: the POSTs in flight across every run " +
        "on a PostgreSQL ledger, on every host, whatever their own options (a run's --team-concurrency can only lower its share)",
    )
    .option('--ledger <path|url>', 'the ledger (default .order-batch/ledger.db, or a postgres:// URL)')
    .option('--config <file>', 'JSON config file (its ledger key)')
    .option('--json', 'print the result as JSON on stdout')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent')
    .action(async (setting: string, value: string, flags: RawFlags) => {
      if (setting !== 'team-concurrency') throw new UsageError(`ledger set knows the setting team-concurrency, not "${setting}".`);
      const options = resolveFlags(flags);
      const [{ setTeamConcurrency }, { osActor }] = await Promise.all([import('../ledger-settings/ledger-settings.js'), import('../accounts/os-user.js')]);
      const ledger = await openCommandLedger(options, loggerFor(options));
      const result = await withCommandLedger(ledger, () => setTeamConcurrency(ledger, value, { actor: osActor() }));
      if (options.json) await run.printJson({ command: 'ledger set', ...result });
      else run.printLine(formatTeamCapSet(result));
    });
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
      const { copyLedger } = await import('../ledger/index.js');
      const result = await copyLedger(from, to, { logger: loggerFor(options) });
      if (options.json) await run.printJson({ command: 'ledger copy', ...result });
      else process.stdout.write(formatCopy(result));
    });
}
