/** Reading a small text file the user named (a config file, a mapping profile), with one clear message when it cannot be. */
import { readFileSync } from 'node:fs';
import { describeFileSystemError } from './errors.js';

/** The file's text, or the error `failure` makes of why it could not be read (the file system's reason in words). */
export function readTextFile(path: string, failure: (reason: string) => Error): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw failure(describeFileSystemError(error));
  }
}
