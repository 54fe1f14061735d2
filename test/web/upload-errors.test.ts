/**
 * Uploads that go wrong, through the real server: the messages name the file the user uploaded,
 * never where the server keeps it, and a malformed form gets a page that says what was wrong.
 */
import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { openLedger } from '../../src/ledger/index.js';
import { describe, expect, it } from 'vitest';
import { openSession, SAMPLES, uploadFolders, useAppWithSession } from './support.js';

const XLSX = readFileSync(join(SAMPLES, 'orders-with-mistakes.xlsx'));
const VALID_CSV = readFileSync(join(SAMPLES, 'orders-valid.csv'));

describe('uploads that go wrong', () => {
  const { web, session } = useAppWithSession();

  const uploads = () => uploadFolders(web);
  /** A form with its parts in exactly the order given. */
  const formOf = (parts: ({ field: string; value: string } | { file: string; name: string; content: Buffer | string })[]) => {
    const form = new FormData();
    for (const part of parts) {
      if ('field' in part) form.append(part.field, part.value);
      else form.append(part.file, new Blob([part.content]), part.name);
    }
    return form;
  };
  const post = async (path: string, body: FormData | string) => {
    const response = await request(`${web.app.url}${path}`, {
      method: 'POST',
      body,
      headers: { cookie: session.cookie, origin: web.app.url, ...(typeof body === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    return { status: response.statusCode, location: response.headers.location as string | undefined, text: await response.body.text() };
  };
  const get = async (path: string) => (await request(`${web.app.url}${path}`, { headers: { cookie: session.cookie } })).body.text();
  const uploadPage = async (name: string, content: Buffer | string) => {
    const posted = await post('/upload', formOf([{ field: '_csrf', value: session.csrf }, { file: 'file', name, content }]));
    expect(posted.status).toBe(303);
    return { location: posted.location!, page: await get(posted.location!) };
  };
  /** No part of where the server keeps its files: the test's temp folder holds the ledger and the work folder. */
  const expectNoServerPath = (text: string) => {
    expect(text).not.toContain(web.dir);
    expect(text).not.toContain(realpathSync(web.dir));
    expect(text).not.toMatch(/web[\\/](uploads|jobs)[\\/]/);
  };

  it('names a PDF by the name it was uploaded under, never by where the server stored it', async () => {
    const { page } = await uploadPage('x.pdf', '%PDF-1.4 not a sheet');
    expect(page).toContain('This file could not be used.');
    expect(page).toContain('x.pdf is a PDF document');
    expectNoServerPath(page);
  });

  it('says so when it reads the Fix sheet of a result workbook uploaded again', async () => {
    const { location } = await uploadPage('orders-with-mistakes.xlsx', XLSX);
    const result = await request(`${web.app.url}${location}/result`, { headers: { cookie: session.cookie } });
    expect(result.statusCode).toBe(200);
    const { page } = await uploadPage('orders-with-mistakes.result.xlsx', Buffer.from(await result.body.arrayBuffer()));
    expect(page).toContain('orders-with-mistakes.result.xlsx is a result workbook of order-batch: its &quot;Fix&quot; worksheet (only the rows to correct) was read');
    expectNoServerPath(page);
  });

  it('names an empty file by its uploaded name', async () => {
    const { page } = await uploadPage('empty.csv', '');
    expect(page).toContain('empty.csv is empty');
    expectNoServerPath(page);
  });

  it('tells the uploaded name to give a workbook renamed to .csv', async () => {
    const { page } = await uploadPage('orders.csv', XLSX);
    expect(page).toContain('orders.csv is really an Excel workbook (.xlsx) although its name ends in .csv: rename it to orders.xlsx and try again');
    expectNoServerPath(page);
  });

  it("names the uploaded file, not the server's copy, when a submission cannot read it", async () => {
    const { location } = await uploadPage('orders-valid.csv', VALID_CSV);
    // The sheet disappears between the check and the submission: from the work folder (someone tidied
    // it) and from the ledger (past its retention, as another instance's housekeeping removes it).
    rmSync(join(web.workDir, location, 'orders-valid.csv'));
    const ledger = await openLedger(web.ledgerPath);
    await ledger.files.removeOlderThan('2999-01-01T00:00:00Z');
    await ledger.close();
    const submitted = await post(`${location}/submit`, `_csrf=${encodeURIComponent(session.csrf)}`);
    expect(submitted.status).toBe(303);
    const job = submitted.location!;
    let progress: { state: string; error?: string; message: string };
    do {
      const response = await request(`${web.app.url}${job}/progress`, { headers: { cookie: session.cookie, accept: 'application/json' } });
      progress = (await response.body.json()) as typeof progress;
    } while (progress.state === 'queued' || progress.state === 'running');
    expect(progress.state).toBe('failed');
    expect(progress.error).toContain('The sheet orders-valid.csv is no longer kept');
    expectNoServerPath(JSON.stringify(progress));
    const page = await get(job);
    expect(page).toContain('<p>The sheet orders-valid.csv is no longer kept');
    expectNoServerPath(page);
  });

  it('refuses two files in one form as one file at a time (400), not as too large, and keeps neither', async () => {
    const before = uploads().length;
    const posted = await post(
      '/upload',
      formOf([
        { field: '_csrf', value: session.csrf },
        { file: 'file', name: 'a.csv', content: VALID_CSV },
        { file: 'file', name: 'b.csv', content: VALID_CSV },
      ]),
    );
    expect(posted.status).toBe(400);
    expect(posted.text).toContain('one file at a time');
    expect(posted.text).not.toContain('too large');
    expect(uploads().length).toBe(before);
  });

  it('checks a form whose CSRF field comes after the file', async () => {
    const posted = await post('/upload', formOf([{ file: 'file', name: 'orders-valid.csv', content: VALID_CSV }, { field: '_csrf', value: session.csrf }]));
    expect(posted.status).toBe(303);
    const page = await get(posted.location!);
    expect(page).toMatch(/<strong data-count="valid">\d+<\/strong>/);
    expect(page).not.toContain('could not be used');
  });

  it('refuses a form whose CSRF field after the file is not this session’s, and keeps nothing of it', async () => {
    const other = await openSession(web.app.url);
    const before = uploads().length;
    const posted = await post('/upload', formOf([{ file: 'file', name: 'orders-valid.csv', content: VALID_CSV }, { field: '_csrf', value: other.csrf }]));
    expect(posted.status).toBe(403);
    expect(posted.text).toContain('Reload the page');
    expect(uploads().length).toBe(before);
  });

  it('asks for a CSV or XLSX file when the file comes under another field name', async () => {
    const before = uploads().length;
    const posted = await post('/upload', formOf([{ field: '_csrf', value: session.csrf }, { file: 'upload', name: 'orders-valid.csv', content: VALID_CSV }]));
    expect(posted.status).toBe(400);
    expect(posted.text).toContain('Choose a CSV or XLSX file');
    expect(uploads().length).toBe(before);
  });

  it('says a form with too many fields was malformed (400), not that the file was too large', async () => {
    const fields = Array.from({ length: 15 }, (_, i) => ({ field: `extra${i}`, value: 'x' }));
    const posted = await post('/upload', formOf([{ field: '_csrf', value: session.csrf }, ...fields, { file: 'file', name: 'orders-valid.csv', content: VALID_CSV }]));
    expect(posted.status).toBe(400);
    expect(posted.text).toContain('more parts than the upload page sends');
    expect(posted.text).not.toContain('too large');
  });

  it('says a form cut short was not readable (400), not that something broke inside and keeps nothing of it', async () => {
    const before = uploads().length;
    const body = `--XX\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${session.csrf}\r\n--XX\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ncustomerOrderId,`;
    const response = await request(`${web.app.url}/upload`, {
      method: 'POST',
      body,
      headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'multipart/form-data; boundary=XX' },
    });
    const text = await response.body.text();
    expect(response.statusCode).toBe(400);
    expect(text).toContain('could not be read (cut short or garbled)');
    expect(uploads().length).toBe(before);
  });
});
