/** `order-batch audit`: who did what, when and from where, from the ledger's audit trail (newest first). */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { AuditRecord } from '../ledger/index.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, parseNumberFlag, resolveFlags } from './command-options.js';

interface AuditFlags extends RawFlags {
  since?: string;
  until?: string;
  user?: string;
  limit?: string;
}

export function addAuditCommand(program: Command, run: CliRun): void {
  program
    .command('audit')
    .description('print the audit trail: every check, submission, cancel, reconciliation, download and account change, newest first')
    .option('--since <when>', 'from this instant or date (2026-11-01), or this long ago (24h, 7d)')
    .option('--until <when>', 'up to (not including) this instant, date or time ago')
    .option('--user <name>', 'only what this account (or operating-system user) did')
    .option('--limit <n>', 'at most this many entries (default 1000)')
    .option('--json', 'print the entries as JSON')
    .option('--ledger <path|url>', 'the ledger (default .order-batch/ledger.db)')
    .option('--sandbox', 'the audit trail of the sandbox ledger')
    .option('--config <file>', 'JSON config file (its ledger key)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent')
    .action(async (flags: AuditFlags) => {
      const options = resolveFlags(flags);
      const [{ parseInstantOrAgo }, { formatAuditLine }, { ledgerExists, openLedger }] = await Promise.all([
        import('../audit/since.js'),
        import('../audit/describe.js'),
        import('../ledger/index.js'),
      ]);
      const now = new Date();
      const query = {
        ...(flags.since !== undefined ? { since: parseInstantOrAgo('--since', flags.since, now) } : {}),
        ...(flags.until !== undefined ? { until: parseInstantOrAgo('--until', flags.until, now) } : {}),
        ...(flags.user !== undefined ? { actor: flags.user.trim() } : {}),
        limit: parseNumberFlag('limit', flags.limit, { min: 1, max: 10_000, integer: true }) ?? 1000,
      };
      if (query.since && query.until && query.since >= query.until) throw new UsageError(`--since (${query.since}) must come before --until (${query.until}).`);
      let entries: AuditRecord[] = [];
      if (ledgerExists(options.ledgerPath)) {
        const ledger = await openLedger(options.ledgerPath, { logger: loggerFor(options) });
        try {
          entries = await ledger.audit.list(query);
        } finally {
          await ledger.close();
        }
      }
      if (options.json) return run.printJson({ command: 'audit', ...query, entries });
      if (entries.length === 0) return run.printLine('Nothing in the audit trail for this selection.');
      for (const entry of entries) run.printLine(formatAuditLine(entry));
      if (entries.length === query.limit) run.warn(`showing the newest ${query.limit}; use --since, --until or --limit for more`);
    });
}
