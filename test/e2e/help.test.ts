/** Every command's --help, read as a newcomer reads it: each option says what it does for that command. */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const COMMANDS = ['validate', 'import', 'reconcile', 'demo', 'serve', 'template', 'sandbox'];

async function helpOf(command: string | null): Promise<string> {
  const res = await runCli(command === null ? ['--help'] : [command, '--help']);
  expect(res.code).toBe(0);
  return res.stdout;
}

/** Each option of a help text with its description, the wrapped lines joined. */
function optionsOf(help: string): Map<string, string> {
  const options = new Map<string, string>();
  const section = help.split(/^Options:$/m)[1]!.split(/^\S/m)[0]!;
  let current: string | null = null;
  for (const line of section.split('\n')) {
    const start = /^ {2}(?:-\w, )?(--[\w-]+)(?: <[^>]+>)?\s+(.*)$/.exec(line);
    if (start) options.set((current = start[1]!), start[2]!);
    else if (current && line.trim()) options.set(current, `${options.get(current)!} ${line.trim()}`);
  }
  return options;
}

describe('--help', () => {
  it('tells a newcomer where to start and what the exit codes say', async () => {
    const help = await helpOf(null);
    expect(help).toContain('order-batch template');
    expect(help).toContain('order-batch validate orders.xlsx');
    expect(help).toMatch(/Exit codes: 0 .* 1 .* 2 [\s\S]* 3 /);
  });

  it('describes reconcile --out as the workbook it writes, not as validate\'s result files', async () => {
    const out = optionsOf(await helpOf('reconcile')).get('--out')!;
    expect(out).toContain('reconciliation workbook');
    expect(out).not.toMatch(/several files|\.csv/);
    expect(optionsOf(await helpOf('import')).get('--out')).toContain('import-result.xlsx');
  });

  it('offers serve no option it ignores (--json, --out, --sheet)', async () => {
    const options = optionsOf(await helpOf('serve'));
    for (const flag of ['--json', '--out', '--sheet']) expect(options.has(flag), flag).toBe(false);
  });

  it('says how to reach the API, or the sandbox, on every command that uses it', async () => {
    for (const command of ['validate', 'import', 'reconcile', 'serve']) {
      const help = await helpOf(command);
      expect(help, command).toContain('FULFILLMENT_BASE_URL');
      expect(help, command).toContain('--sandbox');
    }
  });

  it('states each default once, and every default of the sandbox', async () => {
    for (const command of COMMANDS) {
      for (const [flag, text] of optionsOf(await helpOf(command))) expect(text.match(/\(default/g)?.length ?? 0, `${command} ${flag}: ${text}`).toBeLessThanOrEqual(1);
    }
    for (const [flag, text] of optionsOf(await helpOf('sandbox'))) if (flag !== '--help') expect(text, flag).toMatch(/default/);
  });

  it('refuses a command that does not exist, even with --help, instead of showing the top-level help as if it did', async () => {
    for (const args of [['archive', '--help'], ['archive'], ['archive', '-h']]) {
      const res = await runCli(args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain("unknown command 'archive'");
    }
  });
});
