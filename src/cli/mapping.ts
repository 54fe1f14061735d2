/** `order-batch mapping suggest <file>` and `mapping list`: flags to the command functions, printed. */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describeFileSystemError, UsageError } from '../errors.js';
import type { Profile } from '../mapping/profile.js';
import type { RawFlags } from '../options.js';
import type { CliRun } from './cli-run.js';
import { loggerFor, resolveFlags, savedProfilesOf } from './command-options.js';
import { redactLedgerLocation } from '../ledger/index.js';
import { openCommandLedger, openExistingLedger, openLedgerIfReadable, withCommandLedger } from './cli-ledger.js';

/** The mappings saved in the ledger the flags name (the web app's mapping step saves them there); none is created by looking. */
async function savedProfiles(flags: RawFlags): Promise<Profile[]> {
  const options = resolveFlags(flags);
  const ledger = await openLedgerIfReadable(options, loggerFor(options));
  return withCommandLedger(ledger, () => savedProfilesOf(options, ledger ? { ledger } : {}));
}

export function addMappingCommand(program: Command, run: CliRun): void {
  const mapping = program.command('mapping').description('mapping profiles: how the columns of a marketplace export feed the order fields');

  mapping
    .command('suggest')
    .description('print a draft mapping profile for a sheet: the best guess for each field and what is still missing')
    .argument('<file>', 'a CSV or XLSX sheet (an export whose columns are not the template\'s)')
    .option('--sheet <name>', 'worksheet of an xlsx file')
    .option('--out <file>', 'write the draft profile to this file instead of stdout')
    .option('--ledger <path>', 'the ledger whose saved mappings are known (default .order-batch/ledger.db, or a postgres:// URL)')
    .option('--config <file>', 'JSON config file')
    .action(async (file: string, flags: RawFlags & { sheet?: string; out?: string }) => {
      const { suggestMapping } = await import('../mapping/mapping-commands.js');
      const saved = await savedProfiles(flags);
      const result = await suggestMapping(file, { saved, ...(flags.sheet !== undefined && { sheet: flags.sheet }) });
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
    .option('--ledger <path>', 'the ledger whose saved mappings are listed (default .order-batch/ledger.db, or a postgres:// URL)')
    .option('--config <file>', 'JSON config file')
    .action(async (flags: RawFlags) => {
      const { listMappings } = await import('../mapping/mapping-commands.js');
      const profiles = listMappings(await savedProfiles(flags));
      if (flags.json) await run.printJson(profiles);
      else for (const p of profiles) run.printLine(`${p.name.padEnd(14)} ${p.label} (${p.origin})`);
    });

  mapping
    .command('save')
    .description('store a profile file (edited from mapping suggest, or a copy of a built-in) in the ledger as a mapping for the team')
    .argument('<profile>', 'the profile .json file')
    .option('--name <name>', 'the name to save it under (default: the profile\'s own "name")')
    .option('--ledger <path>', 'the ledger to save it in (default .order-batch/ledger.db, or a postgres:// URL)')
    .option('--config <file>', 'JSON config file')
    .action(async (file: string, flags: RawFlags & { name?: string }) => {
      const { readSavableProfile, saveMapping } = await import('../mapping/mapping-commands.js');
      const profile = await readSavableProfile(file, flags.name);
      const options = resolveFlags(flags);
      const ledger = await openCommandLedger(options, loggerFor(options));
      const saved = await withCommandLedger(ledger, () => saveMapping(ledger, profile));
      run.printLine(`${saved.isReplaced ? 'Replaced' : 'Saved'} the team mapping ${saved.name}: validate, import and the web app read sheets with its columns with it (--mapping ${saved.name} names it).`);
    });

  mapping
    .command('remove')
    .description('remove a mapping saved for the team (the web app\'s mapping step saves them)')
    .argument('<name>', 'the saved mapping\'s name (mapping list shows them)')
    .option('--ledger <path>', 'the ledger the mapping is saved in (default .order-batch/ledger.db, or a postgres:// URL)')
    .option('--config <file>', 'JSON config file')
    .action(async (name: string, flags: RawFlags) => {
      const { removeSavedMapping } = await import('../mapping/mapping-commands.js');
      const options = resolveFlags(flags);
      const ledgerPath = options.ledgerPath;
      // A ledger not created yet holds no mapping, and is not created by removing one.
      const ledger = await openExistingLedger(options, loggerFor(options));
      if (ledger !== undefined && (await withCommandLedger(ledger, () => removeSavedMapping(ledger, name)))) {
        run.printLine(`Removed the saved mapping ${name}.`);
      } else {
        process.stderr.write(`order-batch: no mapping named ${name} is saved in the ledger ${redactLedgerLocation(ledgerPath)} (order-batch mapping list shows the saved ones).\n`);
        run.exitCode = 1;
      }
    });
}
