/** `order-batch sandbox`: the local imitation of the fulfillment API, until Ctrl-C or SIGTERM. */
import type { Command } from 'commander';
import type { CliRun } from './cli-run.js';
import { parseNumberFlag } from './command-options.js';
import { addSandboxClockCommand } from './sandbox-clock.js';
import { untilStopped } from './signals.js';

interface SandboxFlags {
  port?: string;
  host?: string;
  clientId?: string;
  clientSecret?: string;
  seed?: string;
  state?: string;
  latencyMs?: string;
  faultRate?: string;
  tokenTtl?: string;
}

export function addSandboxCommand(program: Command, run: CliRun): void {
  const sandbox = program.command('sandbox');
  addSandboxClockCommand(sandbox, run);
  sandbox
    .description('run the local imitation of the fulfillment API')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8787')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--client-id <id>', 'client id the sandbox accepts (default sandbox-client)')
    .option('--client-secret <secret>', 'client secret the sandbox accepts (default sandbox-secret)')
    .option('--seed <n>', 'seed for the simulated fulfillment and faults', '1')
    .option('--state <file>', 'keep the sandbox state in this file across restarts (default: in memory only)')
    .option('--latency-ms <n>', 'added latency per API request, in ms (default 0)')
    .option('--fault-rate <p>', 'share of API requests answered 429/5xx or reset, from 0 to 1 (default 0)')
    .option('--token-ttl <seconds>', 'lifetime of issued tokens (default 3600)')
    .action(async (flags: SandboxFlags) => {
      const { runSandbox } = await import('../sandbox/main.js');
      const server = await runSandbox({
        port: parseNumberFlag('port', flags.port, { min: 0, max: 65535, integer: true }),
        host: flags.host,
        clientId: flags.clientId,
        clientSecret: flags.clientSecret,
        seed: parseNumberFlag('seed', flags.seed, { min: 0, max: 2 ** 31, integer: true }),
        statePath: flags.state,
        latencyMs: parseNumberFlag('latency-ms', flags.latencyMs, { min: 0, max: 600_000, integer: true }),
        faultRate: parseNumberFlag('fault-rate', flags.faultRate, { min: 0, max: 1 }),
        tokenTtlSeconds: parseNumberFlag('token-ttl', flags.tokenTtl, { min: 1, max: 86_400 * 365, integer: true }),
        print: (line: string) => run.printLine(line),
      });
      await untilStopped();
      await server.close();
    });
}
