/**
 * `order-batch sandbox clock [--advance 96h]`: reads or moves the embedded sandbox's clock from the
 * command line, as the web app's reconciliation page can: the one `serve --sandbox` and
 * `import --sandbox` share in this folder (or another sandbox with --url).
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, resolveFlags } from './command-options.js';

interface ClockFlags extends RawFlags {
  advance?: string;
  url?: string;
}

const UNIT_HOURS: Record<string, number> = { m: 1 / 60, h: 1, d: 24, w: 168 };

/** `96h`, `4d`, `90m`, `2w`, or a number of hours. */
export function parseAdvance(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([mhdw]?)$/i.exec(text.trim());
  const hours = match ? Number(match[1]) * UNIT_HOURS[(match[2] || 'h').toLowerCase()]! : Number.NaN;
  if (!Number.isFinite(hours) || hours <= 0 || hours > 24 * 365 * 10) {
    throw new UsageError(`--advance takes how far to move the clock forward, such as 96h, 4d or 90m (it never moves back), not "${text}".`);
  }
  return hours;
}

export function addSandboxClockCommand(sandbox: Command, run: CliRun): void {
  sandbox
    .command('clock')
    .description("read or move the embedded sandbox's clock (the one serve --sandbox and import --sandbox share here)")
    .option('--advance <duration>', 'move it forward: 96h, 4d, 90m')
    .option('--ledger <path>', 'the sandbox ledger whose folder holds the sandbox (default .order-batch/sandbox/ledger.db)')
    .option('--url <url>', 'a sandbox started with `order-batch sandbox` instead, e.g. http://127.0.0.1:8787')
    .option('--json', 'print {"now": ...} as JSON')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent')
    .action(async (flags: ClockFlags) => {
      const hours = flags.advance === undefined ? undefined : parseAdvance(flags.advance);
      const options = resolveFlags({ ...flags, sandbox: true });
      const logger = loggerFor({ ...options, logLevel: flags.logLevel ? options.logLevel : 'warn' });
      const [{ openSharedSandbox }, { sandboxStatePathFor }, { request }] = await Promise.all([
        import('../connection/shared-sandbox.js'),
        import('../connection/connect.js'),
        import('undici'),
      ]);
      let now: Date;
      if (flags.url !== undefined) {
        const url = `${flags.url.replace(/\/+$/, '')}/sandbox/clock`;
        const answer = await request(url, hours === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceHours: hours }) }).catch(
          (error: Error) => {
            throw new UsageError(`No sandbox answers at ${flags.url} (${(error as { code?: string }).code ?? error.message}).`);
          },
        );
        const json = (await answer.body.json().catch(() => ({}))) as { now?: string };
        if (answer.statusCode !== 200 || typeof json.now !== 'string') throw new UsageError(`${flags.url} did not answer as a sandbox does (HTTP ${answer.statusCode}).`);
        now = new Date(json.now);
      } else {
        const shared = await openSharedSandbox({ statePath: sandboxStatePathFor(options.ledgerPath), logger });
        try {
          now = hours === undefined ? await shared.now() : await shared.advanceClock(hours);
        } finally {
          await shared.close();
        }
      }
      if (options.json) return run.printJson({ command: 'sandbox clock', now: now.toISOString(), ...(hours !== undefined ? { advancedHours: hours } : {}) });
      run.printLine(hours === undefined ? `The sandbox clock is at ${now.toISOString()}.` : `Moved the sandbox clock ${hours} hours forward, to ${now.toISOString()}.`);
    });
}
