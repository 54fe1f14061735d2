/**
 * What a person sees on a terminal: the CLI run under a pseudo-terminal (util-linux `script`), so that
 * stdout and stderr are TTYs as they are for someone typing the command.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, SAMPLE_NOW, SAMPLES, cleanEnv, tempDir } from './run-cli.js';

/** Every byte the command writes to its terminal (stdout and stderr together, as the person sees them). */
function runOnTerminal(args: string[], env: Record<string, string> = {}): Promise<string> {
  // The arguments travel in the environment: the shell line stays free of any quoting of a hostile name.
  const vars: Record<string, string> = { OB_CLI: CLI };
  args.forEach((arg, i) => (vars[`OB_ARG${i}`] = arg));
  const line = `"${process.execPath}" "$OB_CLI" ${args.map((_, i) => `"$OB_ARG${i}"`).join(' ')}`;
  return new Promise((resolvePromise, reject) => {
    execFile('script', ['-qec', line, '/dev/null'], { env: cleanEnv({ ...env, ...vars }), encoding: 'buffer', timeout: 60_000 }, (error, stdout) => {
      if (error && error.code === undefined) reject(error);
      else resolvePromise((stdout as Buffer).toString('latin1'));
    });
  });
}

const ESC = '\u001b';
const BEL = '\u0007';

/** The valid sample with a terminal title sequence in one order's sourceOfSale, saved under a name that clears the screen. */
function hostileSheet(): string {
  const dir = tempDir('order-batch-terminal-');
  const text = readFileSync(join(SAMPLES, 'orders-valid.csv'), 'utf8').replace('OtherMarketplace', `${ESC}]0;owned${BEL}Shop`);
  const file = join(dir, `orders${ESC}[2J.csv`);
  writeFileSync(file, text);
  return file;
}

describe('control characters of cells and file names', () => {
  it('reach the terminal escaped, never raw: no title set, no screen cleared', async () => {
    const file = hostileSheet();
    const screen = await runOnTerminal(['validate', file, '--now', SAMPLE_NOW, '--out', `${file}.result.xlsx`], { NO_COLOR: '1' });
    expect(screen).toContain('orders\\x1B[2J.csv: 12 rows, 8 orders');
    expect(screen).toContain('"\\x1B]0;owned\\x07Shop"');
    expect(screen).not.toContain(ESC);
    expect(screen).not.toContain(BEL);
  });

  it('are escaped in the errors too, the ones commander prints included', async () => {
    const missing = await runOnTerminal(['validate', `gone${ESC}[2J.csv`, '--now', SAMPLE_NOW], { NO_COLOR: '1' });
    expect(missing).toContain('gone\\x1B[2J.csv');
    const option = await runOnTerminal(['validate', `--x${ESC}]0;t${BEL}`], { NO_COLOR: '1' });
    expect(option).toContain("unknown option '--x\\x1B]0;t\\x07'");
    expect(missing + option).not.toMatch(/[\u001b\u0007]/);
  });
});

describe('NO_COLOR', () => {
  it('keeps colour out of the log a terminal shows, which is coloured without it', async () => {
    const args = ['validate', join(SAMPLES, 'orders-valid.csv'), '--now', SAMPLE_NOW, '--out', join(tempDir('order-batch-color-'), 'r.xlsx')];
    const coloured = await runOnTerminal(args);
    expect(coloured).toContain('checked sheet');
    expect(coloured).toContain(`${ESC}[`);
    const plain = await runOnTerminal(args, { NO_COLOR: '1' });
    expect(plain).toContain('checked sheet');
    expect(plain).not.toContain(ESC);
  });
});
