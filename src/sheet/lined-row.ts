import type { CellValue, RawRow } from './types.js';

/**
 * A row with its cells' text joined by commas (RawRow.line). The line is a memo of the cells, not part of the
 * row's value: it is kept private, so a row equals any other of the same number and cells whether it has one
 * or not, and setting it to undefined (whoever changes the cells does) drops it.
 */
export class LinedRow implements RawRow {
  #line: string | undefined;

  constructor(
    public rowNumber: number,
    public cells: CellValue[],
    line: string | undefined,
  ) {
    this.#line = line;
  }

  get line(): string | undefined {
    return this.#line;
  }

  set line(line: string | undefined) {
    this.#line = line;
  }
}
