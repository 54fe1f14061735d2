/**
 * One run of the CLI: what it prints on stdout and stderr and the exit code its command decided.
 * Commands print through it so that a `--json` run holds exactly one JSON object on stdout, and so
 * that no control character of a cell or a file name reaches a person's terminal raw.
 */
import { formatOutputErrors } from '../run-report/output-errors.js';
import { writeJsonReport, type JsonReport } from '../run-report/json.js';
import { EXIT } from '../errors.js';
import { escapeControlCharacters, escapeControlCharactersInLines } from '../terminal-text.js';

export class CliRun {
  exitCode: number = EXIT.ok;
  /** Set once a command printed its --json report: an error after it must not print a second object. */
  #hasPrintedJson = false;

  get hasPrintedJson(): boolean {
    return this.#hasPrintedJson;
  }

  /** Prints a --json object; a report's orders one by one (a validate of millions of orders is never one string). */
  async printJson(value: object): Promise<void> {
    this.#hasPrintedJson = true;
    await writeJsonReport(value, process.stdout);
  }

  /** A line for a person on stdout, its control characters escaped (see terminal-text.ts). */
  printLine(line: string): void {
    process.stdout.write(`${escapeControlCharacters(line)}\n`);
  }

  /** A line on stderr, prefixed like every message of the tool. */
  warn(message: string): void {
    process.stderr.write(`order-batch: ${escapeControlCharacters(message)}\n`);
  }

  /**
   * The report of validate, import or reconcile: JSON with --json, else the human text; then, on
   * stderr, the files that could not be written (the report is printed first: it still stands).
   */
  async printReport<R extends JsonReport>(report: R, options: { json: boolean }, formatText: (report: R) => string): Promise<void> {
    if (options.json) await this.printJson(report);
    else process.stdout.write(escapeControlCharactersInLines(formatText(report)));
    process.stderr.write(escapeControlCharactersInLines(formatOutputErrors(report)));
  }
}
