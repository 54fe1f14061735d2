/**
 * The `scale` part of `npm run bench`: sheets of every size and shape in bounded memory (issue 22). Each
 * figure is printed with its target; big files are generated into the data folder and removed after.
 *
 *   npm run bench -- scale            validate at 1M rows, the hostile shapes, the web app (minutes)
 *   npm run bench -- scale-huge       validate a 10,000,000-row CSV (about 2.5 GB; tens of minutes)
 *   npm run bench -- scale-reconcile  reconcile 1,000,000 packages (tens of minutes)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { FormData, request } from 'undici';
import { COLUMNS, FIELDS } from '../src/sheet/columns.js';
import { writeLargeCsv } from './order-sheets.js';
import { measureExcelJsBaseline, type Measurement } from './read-baseline.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
/**
 * The V8 flags the order-batch bin runs with (src/cli/main.ts's shebang): the children measure what users
 * get. A 16 MB semi-space: rows no longer live on the heap, and 64 MB cost 180 MB of RSS (two isolates) for
 * the same CPU time at 1M rows.
 */
const CLI_NODE_FLAGS = ['--max-semi-space-size=16'];
const MB = 1024 * 1024;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export interface ChildRun {
  ms: number;
  /** CPU time of the run (user + system, both threads). */
  cpuMs: number;
  /** CPU time of the main thread alone, where the checks run (null off Linux). */
  mainCpuMs: number | null;
  /** Data rows read. */
  rows: number;
  maxRssMb: number;
  orders: number;
  summary?: Record<string, number>;
  error?: string;
}

/** One validate in a fresh process (validate-child.js), so its peak memory is its own; `rowsOnly`: the rows read alone. */
export function runValidateChild(file: string, out: string, now: Date, rowsOnly = false): ChildRun {
  const args = [...CLI_NODE_FLAGS, join(HERE, 'validate-child.js'), file, out, now.toISOString(), ...(rowsOnly ? ['--rows-only'] : [])];
  const output = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 16 * MB });
  return JSON.parse(output.trim().split('\n').pop()!) as ChildRun;
}

/**
 * papaparse alone on the file, in a fresh process as validate runs: its CPU time is then its own, not swollen by
 * the collector walking the bench's heap.
 */
export function runPapaparseChild(file: string): Measurement {
  const output = execFileSync(process.execPath, [join(HERE, 'read-baseline.js'), '--papaparse', file], { encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').pop()!) as Measurement;
}

/**
 * The lowest time ratio this machine allows a validate of this much CPU: all of it spread evenly over every
 * core, against papaparse alone's time. A target below it cannot be met here, whatever the overlap.
 */
export function floorLine(cpuMs: number, papaparseMs: number): string {
  const cores = availableParallelism();
  return `floor on these ${cores} cores: ${fmt(cpuMs / cores / papaparseMs, 2)}x (validate's CPU, ${fmt(cpuMs)} ms, spread evenly over them, against papaparse alone's ${fmt(papaparseMs)} ms)`;
}

function verdict(ok: boolean): string {
  return ok ? 'met' : 'NOT met';
}

/** Validate against papaparse alone on the same file: time ratio and peak memory, each with its target. */
async function compareWithPapaparse(line: (text: string) => void, label: string, file: string, now: Date, targets: { ratio: number; rssMb: number }): Promise<void> {
  const size = statSync(file).size;
  const papa = runPapaparseChild(file);
  const run = runValidateChild(file, `${file}.result.csv`, now);
  rmSync(`${file}.result.csv`, { force: true });
  const ratio = run.ms / papa.ms;
  line(
    `${label} (${fmt(size / 1e6)} MB): papaparse alone ${fmt(papa.ms)} ms (CPU ${fmt(papa.cpuMs)} ms); ` +
      `validate ${fmt(run.ms)} ms (CPU ${fmt(run.cpuMs)} ms)${run.error ? ` (refused: ${run.error.slice(0, 120)}...)` : `, ${fmt(run.orders)} orders`}`,
  );
  line(`  ratio ${fmt(ratio, 2)}x (target <= ${targets.ratio}x: ${verdict(ratio <= targets.ratio)}), CPU ${fmt(run.cpuMs / papa.cpuMs, 2)}x; peak RSS ${fmt(run.maxRssMb)} MB (target <= ${fmt(targets.rssMb)} MB: ${verdict(run.maxRssMb <= targets.rssMb)}); load average ${loadavg().map((n) => fmt(n, 1)).join(' ')}`);
  if (!run.error) line(`  ${floorLine(run.cpuMs, papa.ms)}`);
  if (run.mainCpuMs !== null && run.rows >= 100_000) {
    const perMillion = (run.mainCpuMs / run.rows) * 1e6;
    line(`  main-thread CPU ${fmt(perMillion)} ms per million rows (target <= 3,500 ms: ${verdict(perMillion <= 3500)}); papaparse's whole parse ${fmt((papa.cpuMs / run.rows) * 1e6)} ms per million rows`);
    // The floor under the main thread's share: taking the rows over from the parse worker, nothing done with them.
    const handOver = runValidateChild(file, `${file}.result.csv`, now, true);
    if (handOver.mainCpuMs !== null) line(`  of which the hand-over alone (rows read, neither checked nor written): main-thread CPU ${fmt((handOver.mainCpuMs / handOver.rows) * 1e6)} ms per million rows`);
  }
}

/** Validate of a workbook: against exceljs's streaming reader alone (papaparse does not read a workbook). */
async function compareWithExcelJs(line: (text: string) => void, label: string, file: string, now: Date): Promise<void> {
  const size = statSync(file).size;
  const run = runValidateChild(file, `${file}.result.csv`, now);
  rmSync(`${file}.result.csv`, { force: true });
  let baseline = 'exceljs alone: not run (the file is refused before any row is read)';
  if (!run.error) baseline = `exceljs streaming reader alone ${fmt((await measureExcelJsBaseline(file)).ms)} ms`;
  line(`${label} (${fmt(size / 1e6)} MB): ${baseline}; validate ${fmt(run.ms)} ms${run.error ? ` (refused: ${run.error.slice(0, 140)}...)` : `, ${fmt(run.orders)} orders`}`);
  line(`  peak RSS ${fmt(run.maxRssMb)} MB (target <= 1,024 MB: ${verdict(run.maxRssMb <= 1024)})`);
}

export async function benchScale(dataDir: string, line: (text: string) => void, oneMillionRows: string): Promise<void> {
  const asOf = new Date(statSync(oneMillionRows).mtimeMs);
  line('\n== scale: validate, 1,000,000-row CSV, result CSV written');
  await compareWithPapaparse(line, '1M rows', oneMillionRows, asOf, { ratio: 2.0, rssMb: 500 });

  line('\n== scale: hostile shapes (refused or read in <= 1 GB, within 3x papaparse on the same file)');
  const quotes = join(dataDir, 'hostile-quotes.csv');
  writeQuotedCellCsv(quotes, 10_000_000, 50 * 1e6, asOf);
  await compareWithPapaparse(line, 'one quoted cell of "" x 10M', quotes, asOf, { ratio: 3, rssMb: 1024 });
  rmSync(quotes, { force: true });

  const wideCsv = join(dataDir, 'hostile-columns.csv');
  writeWideCsv(wideCsv, 1_100_000, 20);
  // Refused at its 16,385th column (limits.ts), without parsing the rest of its 13 MB header line.
  await compareWithPapaparse(line, 'CSV with 1.1M columns', wideCsv, asOf, { ratio: 3, rssMb: 1024 });
  const refusal = spawnSync(process.execPath, [CLI, 'validate', wideCsv, '--out', `${wideCsv}.out.csv`, '--now', asOf.toISOString()], { encoding: 'utf8', maxBuffer: 64 * MB });
  line(`  the CLI: exit ${refusal.status}, "${`${refusal.stdout}\n${refusal.stderr}`.split('\n').find((l) => l.includes('columns'))?.trim().slice(0, 160) ?? '(no message)'}"`);
  rmSync(wideCsv, { force: true });
  rmSync(`${wideCsv}.out.csv`, { force: true });

  const wideXlsx = join(dataDir, 'hostile-columns.xlsx');
  await writeWideXlsx(wideXlsx, 16_384, 900);
  await compareWithExcelJs(line, 'XLSX with 16,384 columns', wideXlsx, asOf);
  rmSync(wideXlsx, { force: true });

  const strings = join(dataDir, 'hostile-strings.xlsx');
  writeSharedStringsBomb(strings, 2 * 1024 * MB);
  await compareWithExcelJs(line, 'XLSX whose shared strings unpack to 2 GB', strings, asOf);
  rmSync(strings, { force: true });

  line('\n== scale: the web app, 50 uploads of 5 MB sheets at once');
  const upload = join(dataDir, 'upload-5mb.csv');
  await writeLargeCsv(upload, 20_000, asOf);
  const web = await benchWebUploads(upload, 50, asOf);
  rmSync(upload, { force: true });
  line(`${web.uploads} uploads of ${fmt(web.uploadBytes / 1e6, 1)} MB: all checked in ${fmt(web.ms)} ms; server peak RSS ${fmt(web.peakRssMb)} MB (target <= 2,048 MB: ${verdict(web.peakRssMb <= 2048)})`);
}

export async function benchScaleHuge(dataDir: string, line: (text: string) => void): Promise<void> {
  line('\n== scale: validate, 10,000,000-row CSV, result CSV written (the file is removed after)');
  const file = join(dataDir, 'orders-10000000.csv');
  const now = new Date();
  line(`generating ${file} ...`);
  await writeLargeCsv(file, 10_000_000, now);
  try {
    await compareWithPapaparse(line, '10M rows', file, now, { ratio: 2.0, rssMb: 1024 });
  } finally {
    rmSync(file, { force: true });
  }
}

/** A CSV of `size` bytes: a header, one row whose name cell is `""` x `quotes` inside quotes, then ordinary rows. */
export function writeQuotedCellCsv(path: string, quotes: number, size: number, now: Date): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `${FIELDS.join(',')}\r\n`);
    const cells = FIELDS.map((f) => (f === 'name' ? `"${'""'.repeat(quotes)}"` : f === 'customerOrderId' ? 'SO-1' : ''));
    writeSync(fd, `${cells.join(',')}\r\n`);
    let written = statSync(path).size;
    const day = now.toISOString().slice(0, 10);
    for (let i = 2; written < size; i++) {
      const row = `${FIELDS.map((f) => (f === 'customerOrderId' ? `SO-${i}` : f === 'orderDate' ? day : 'x')).join(',')}\r\n`.repeat(1000);
      written += writeSync(fd, row);
    }
  } finally {
    closeSync(fd);
  }
}

/** A CSV whose header has the template's columns and `extra` more, and `rows` short data rows. */
export function writeWideCsv(path: string, extra: number, rows: number): void {
  const fd = openSync(path, 'w');
  try {
    let header = FIELDS.join(',');
    for (let i = 0; i < extra; i++) {
      header += `,extra${i}`;
      if (header.length > MB) {
        writeSync(fd, header);
        header = '';
      }
    }
    writeSync(fd, `${header}\r\n`);
    for (let r = 0; r < rows; r++) writeSync(fd, `${FIELDS.map((f) => (f === 'customerOrderId' ? `SO-${r}` : 'x')).join(',')}\r\n`);
  } finally {
    closeSync(fd);
  }
}

/** A workbook of `columns` columns (the template's first) and `rows` rows of numbers, written by exceljs's streaming writer. */
export async function writeWideXlsx(path: string, columns: number, rows: number): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet('Orders');
  const header = Array.from({ length: columns }, (_, i) => COLUMNS[i]?.field ?? `extra${i}`);
  sheet.addRow(header).commit();
  for (let r = 0; r < rows; r++) sheet.addRow(Array.from({ length: columns }, (_, i) => (i === 0 ? `SO-${r}` : (r * 7919 + i * 104_729) % 1_000_003))).commit();
  sheet.commit();
  await workbook.commit();
}

/**
 * A workbook whose xl/sharedStrings.xml unpacks to `unpacked` bytes of distinct strings: a zip written by hand,
 * the big part deflated as it is generated and its sizes in a data descriptor (as a streaming writer does).
 */
export function writeSharedStringsBomb(path: string, unpacked: number): void {
  const fd = openSync(path, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  const put = (bytes: Buffer) => {
    writeSync(fd, bytes);
    offset += bytes.length;
  };
  const entry = (name: string, data: Buffer | null, build?: (emit: (chunk: Buffer) => void) => void) => {
    const nameBytes = Buffer.from(name, 'utf8');
    const start = offset;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0008, 6); // sizes and CRC in a data descriptor after the data
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(nameBytes.length, 26);
    put(local);
    put(nameBytes);
    let crc = 0;
    let size = 0;
    let packed = 0;
    // Deflated chunk by chunk, each ending in a sync flush (no final block), then one empty final block: one stream.
    const deflate = (chunk: Buffer, finishFlush: number) => {
      const out = deflateRawSync(chunk, { level: 1, finishFlush });
      put(out);
      packed += out.length;
    };
    const emit = (chunk: Buffer) => {
      crc = crc32(chunk, crc);
      size += chunk.length;
      deflate(chunk, constants.Z_SYNC_FLUSH);
    };
    if (data) emit(data);
    else build!(emit);
    deflate(Buffer.alloc(0), constants.Z_FINISH);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(packed, 8);
    descriptor.writeUInt32LE(size, 12);
    put(descriptor);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x0008, 8);
    record.writeUInt16LE(8, 10);
    record.writeUInt32LE(crc >>> 0, 16);
    record.writeUInt32LE(packed, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(nameBytes.length, 28);
    record.writeUInt32LE(start, 42);
    central.push(record, nameBytes);
  };
  try {
    const rel = (id: string, type: string, target: string) => `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
    const xml = (text: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${text}`, 'utf8');
    entry('[Content_Types].xml', xml('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>'));
    entry('_rels/.rels', xml(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'officeDocument', 'xl/workbook.xml')}</Relationships>`));
    entry('xl/workbook.xml', xml('<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Orders" sheetId="1" r:id="rId1"/></sheets></workbook>'));
    entry('xl/_rels/workbook.xml.rels', xml(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'worksheet', 'worksheets/sheet1.xml')}${rel('rId2', 'sharedStrings', 'sharedStrings.xml')}</Relationships>`));
    entry('xl/sharedStrings.xml', null, (emit) => {
      emit(xml('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'));
      let total = 0;
      for (let i = 0; total < unpacked; i++) {
        let text = '';
        for (let k = 0; k < 10_000; k++) text += `<si><t>Customer ${i * 10_000 + k} at ${((i * 10_000 + k) * 2_654_435_761) % 4_294_967_296} Main Street</t></si>`;
        const chunk = Buffer.from(text, 'utf8');
        total += chunk.length;
        emit(chunk);
      }
      emit(Buffer.from('</sst>'));
    });
    const row = (r: number) => `<row r="${r}"><c r="A${r}" t="s"><v>${r}</v></c></row>`;
    entry('xl/worksheets/sheet1.xml', xml(`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${row(1)}${row(2)}</sheetData></worksheet>`));
    const directory = Buffer.concat(central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(central.length / 2, 8);
    end.writeUInt16LE(central.length / 2, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    put(directory);
    put(end);
  } finally {
    closeSync(fd);
  }
}

/** `serve --sandbox` in a child, `uploads` copies of a sheet posted at once, every verdict page waited for; the server's peak RSS. */
export async function benchWebUploads(file: string, uploads: number, now: Date, options: { scrapeEveryMs?: number } = {}): Promise<{ uploads: number; uploadBytes: number; ms: number; peakRssMb: number; scrapes: number }> {
  const dir = join(dirname(file), 'web-bench');
  rmSync(dir, { recursive: true, force: true });
  // The server's log (a JSON line per upload and check) goes to a file beside the data, so the bench prints its figures alone.
  const log = `${dir}.log`;
  const logFd = openSync(log, 'w');
  const child = spawn(process.execPath, [...CLI_NODE_FLAGS, CLI, 'serve', '--sandbox', '--port', '0', '--ledger', join(dir, 'ledger.db'), '--now', now.toISOString()], { stdio: ['ignore', 'pipe', logFd] });
  closeSync(logFd);
  try {
    const [first] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    if (!first.startsWith('listening ')) throw new Error(`serve did not start (its log: ${log})`);
    // The rest of what serve prints (where to open it) is read and dropped.
    child.stdout!.resume();
    const url = first.replace(/^listening /, '');
    const home = await request(`${url}/`);
    const cookie = String(home.headers['set-cookie']).split(';')[0]!;
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await home.body.text())![1]!;
    const content = readFileSync(file);
    const started = performance.now();
    // What a Prometheus server does: GET /metrics on its interval, beside the work.
    let scrapes = 0;
    const scraper = options.scrapeEveryMs ? setInterval(() => void request(`${url}/metrics`).then((r) => r.body.text()).then(() => scrapes++), options.scrapeEveryMs) : undefined;
    const pages = await Promise.all(
      Array.from({ length: uploads }, async (_, i) => {
        const form = new FormData();
        form.append('_csrf', csrf);
        form.append('file', new Blob([content]), `sheet-${i}.csv`);
        const response = await request(`${url}/upload`, { method: 'POST', headers: { cookie }, body: form });
        await response.body.dump();
        return String(response.headers.location);
      }),
    );
    for (const page of pages) {
      for (let attempt = 0; ; attempt++) {
        const body = await (await request(`${url}${page}`, { headers: { cookie } })).body.text();
        if (!body.includes('http-equiv="refresh"')) break;
        if (attempt > 6_000) throw new Error(`${page} was never checked (the server's log: ${log})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const ms = performance.now() - started;
    clearInterval(scraper);
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
    return { uploads, uploadBytes: content.length, ms, peakRssMb: peakKb / 1024, scrapes };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
}
