/**
 * A password for `users add` and `users password`: from --password-file (its first line), typed at
 * a terminal (never echoed, asked twice), or piped on standard input (its first line).
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { describeFileSystemError, UsageError } from '../errors.js';

const NO_PASSWORD = 'No password was given: type one when asked, pipe one line on standard input, or use --password-file <file>.';

export async function readPassword(options: { file?: string; name: string; stdin?: NodeJS.ReadStream; stderr?: NodeJS.WriteStream }): Promise<string> {
  const stdin = options.stdin ?? process.stdin;
  const stderr = options.stderr ?? process.stderr;
  if (options.file !== undefined) return firstLineOf(options.file);
  if (!stdin.isTTY) return readLine(stdin);
  const first = await readHidden(stdin, stderr, `Password for ${options.name}: `);
  const again = await readHidden(stdin, stderr, 'The same password again: ');
  if (first !== again) throw new UsageError('The two passwords differ; nothing was changed. Run the command again.');
  return first;
}

async function firstLineOf(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the password file ${file}: ${describeFileSystemError(error)}.`, { cause: error });
  }
  const line = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  if (line === '') throw new UsageError(`The password file ${file} is empty: put the password on its first line.`);
  return line;
}

function readLine(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stdin, crlfDelay: Infinity });
    let isDone = false;
    lines.once('line', (line) => {
      isDone = true;
      lines.close();
      if (line === '') reject(new UsageError(NO_PASSWORD));
      else resolve(line);
    });
    lines.once('close', () => {
      if (!isDone) reject(new UsageError(NO_PASSWORD));
    });
  });
}

/** Reads one line at a terminal in raw mode, showing nothing of what is typed. */
function readHidden(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream, prompt: string): Promise<string> {
  stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else if (typed === '') reject(new UsageError(NO_PASSWORD));
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new UsageError('Interrupted; nothing was changed.'));
        if (char === '\u0004') return finish();
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
