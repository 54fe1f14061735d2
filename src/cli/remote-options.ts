/** The flags of remote locations (src/remote), for the commands that read or write sheets. */
import type { Command } from 'commander';
import type { Ledger } from '../ledger/index.js';
import type { ResolvedOptions } from '../options.js';
import type { RemoteRunContext } from '../remote/remote-run.js';
import { quietAwsSdkNotice } from './command-options.js';

export function addRemoteOptions(cmd: Command, { isReading }: { isReading: boolean }): Command {
  cmd
    .option('--ssh-key <file>', 'sftp:// locations: the private key to log in with (or ORDER_BATCH_SSH_KEY; a password comes from ORDER_BATCH_SSH_PASSWORD)')
    .option('--known-hosts <file>', "sftp:// locations: the server's host key is checked against this file (default ~/.ssh/known_hosts)");
  if (isReading) cmd.option('--settle <seconds>', 'a remote file modified more recently than this waits for the next run (default 60)');
  return cmd;
}

/** The remote locations' context; an import hands in the ledger it opened, which its remote sheets are claimed in. */
export function remoteContextOf(options: ResolvedOptions, ledger?: Ledger): RemoteRunContext {
  quietAwsSdkNotice();
  return { settings: options.remote, ledgerPath: options.ledgerPath, ...(ledger ? { ledger } : {}), claimLeaseMs: options.claimLeaseMs, currentFolder: process.cwd() };
}
