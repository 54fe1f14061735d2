/** The work folder's rule for messages: a file inside it is named by its name, never by its path. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorkDir } from '../../src/web/work-dir.js';
import { makeTempFolder } from '../support/temp-dir.js';

describe('naming files in messages', () => {
  const dir = makeTempFolder('workdir');
  const work = openWorkDir(join(dir, 'web'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names an upload by its own name, however deep the server's copy lies", () => {
    const stored = join(work.dirOf('uploads', 'AAAAAAAAAAAAAAAA'), 'my orders.csv');
    expect(work.nameFilesIn(`${stored} is empty: put the header row and at least one order in it`)).toBe('my orders.csv is empty: put the header row and at least one order in it');
    expect(work.nameFilesIn(`${stored} is really a workbook: rename it to ${join(work.root, 'uploads', 'AAAAAAAAAAAAAAAA', 'my orders.xlsx')}`)).toBe(
      'my orders.csv is really a workbook: rename it to my orders.xlsx',
    );
  });

  it('leaves other text, and paths outside the work folder, as they are', () => {
    expect(work.nameFilesIn('row 3, email: not an email address')).toBe('row 3, email: not an email address');
    const sibling = `${work.root}-old/orders.csv was not found`;
    expect(work.nameFilesIn(sibling)).toBe(sibling);
  });

  it('calls the work folder itself by what it is', () => {
    expect(work.nameFilesIn(`cannot write in ${work.root}: disk full`)).toBe("cannot write in the web app's work folder: disk full");
    expect(work.nameFilesIn(`cannot write in ${work.root}.`)).toBe("cannot write in the web app's work folder.");
  });
});
