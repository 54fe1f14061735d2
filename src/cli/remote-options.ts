/** The flags of remote locations (src/remote), for the commands that read or write sheets. */
import type { Command } from 'commander';
import type { ResolvedOptions } from '../options.js';
import type { RemoteRunContext } from '../remote/remote-run.js';

export function addRemoteOptions(cmd: Command, { isReading }: { isReading: boolean }): Command {
  cmd
    .option('--ssh-key <file>', 'sftp:// locations: the private key to log in with (or ORDER_BATCH_SSH_KEY; a password comes from ORDER_BATCH_SSH_PASSWORD)')
    .option('--known-hosts <file>', "sftp:// locations: the server's host key is checked against this file (default ~/.ssh/known_hosts)");
  if (isReading) cmd.option('--settle <seconds>', 'a remote file modified more recently than this waits for the next run (default 60)');
  return cmd;
}

export function remoteContextOf(options: ResolvedOptions): RemoteRunContext {
  // The AWS SDK warns on every run under Node 20 about its own future releases; order-batch supports
  // Node 20 with the SDK it ships, so the warning is noise in a cron job's mail. The SDK reads only this switch.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return { settings: options.remote, ledgerPath: options.ledgerPath, claimLeaseMs: options.claimLeaseMs, currentFolder: process.cwd() };
}
