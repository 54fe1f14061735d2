/**
 * `npm run bench -- api`: 200 uploads of a 1,000-row sheet, 20 at once, through the HTTP API and
 * through the pages, each against its own `serve --sandbox` child (so each peak memory is its own):
 * every upload answered, the p95 time from the upload to its verdict, and the server's peak RSS.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FormData, request } from 'undici';
import { writeLargeCsv } from './order-sheets.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const UPLOADS = 200;
const AT_ONCE = 20;
const ROWS = 1_000;
const PASSWORD = 'bench password 1';
/** How often a waiting upload is asked about, through either door (20 clients: 40 requests a second). */
const POLL_MS = 500;

interface Figures {
  answered: number;
  statuses: Record<number, number>;
  p50Ms: number;
  p95Ms: number;
  totalMs: number;
  peakRssMb: number;
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchApi(dataDir: string, line: (text: string) => void): Promise<void> {
  const asOf = new Date();
  const dir = join(dataDir, 'api-bench');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const sheet = join(dir, `orders-${ROWS}.csv`);
  await writeLargeCsv(sheet, ROWS, asOf);
  const content = readFileSync(sheet);
  line(`\n== api: ${UPLOADS} uploads of a ${fmt(ROWS)}-row sheet (${fmt(content.length / 1e3)} kB), ${AT_ONCE} at once, upload to verdict`);
  try {
    const api = await withServer(dir, 'api', asOf, (url, auth) => runAll((i) => uploadThroughApi(url, auth.token, content, i)));
    const pages = await withServer(dir, 'pages', asOf, (url, auth) => runAll((i) => uploadThroughPages(url, auth, content, i)));
    for (const [name, f] of [['API  ', api], ['pages', pages]] as const) {
      const statuses = Object.entries(f.statuses).map(([status, n]) => `${n}x ${status}`).join(', ');
      line(`${name}: ${f.answered} of ${UPLOADS} answered (${statuses}) in ${fmt(f.totalMs)} ms; p50 ${fmt(f.p50Ms)} ms, p95 ${fmt(f.p95Ms)} ms; server peak RSS ${fmt(f.peakRssMb)} MB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the uploads AT_ONCE at a time; each gives its latency and its first answer's status. */
async function runAll(upload: (i: number) => Promise<{ ms: number; status: number }>): Promise<Omit<Figures, 'peakRssMb'>> {
  const results: { ms: number; status: number }[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < UPLOADS) results.push(await upload(next++));
    }),
  );
  const totalMs = performance.now() - started;
  const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
  const statuses: Record<number, number> = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { answered: results.filter((r) => r.status > 0).length, statuses, p50Ms: at(0.5), p95Ms: at(0.95), totalMs };
}

async function uploadThroughApi(url: string, token: string, content: Buffer, i: number): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const form = new FormData();
  form.append('file', new Blob([content]), `sheet-${i}.csv`);
  const headers = { authorization: `Bearer ${token}` };
  const response = await request(`${url}/api/v1/sheets`, { method: 'POST', headers, body: form });
  const body = (await response.body.json()) as { id: string; state: string };
  for (let state = body.state; state === 'waiting' || state === 'checking'; ) {
    await pause(POLL_MS);
    state = ((await (await request(`${url}/api/v1/sheets/${body.id}?pageSize=1`, { headers })).body.json()) as { state: string }).state;
  }
  return { ms: performance.now() - started, status: response.statusCode };
}

async function uploadThroughPages(url: string, auth: { cookie: string; csrf: string }, content: Buffer, i: number): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const form = new FormData();
  form.append('_csrf', auth.csrf);
  form.append('file', new Blob([content]), `sheet-${i}.csv`);
  const response = await request(`${url}/upload`, { method: 'POST', headers: { cookie: auth.cookie, origin: url }, body: form });
  await response.body.dump();
  const page = String(response.headers.location);
  for (;;) {
    const body = await (await request(`${url}${page}`, { headers: { cookie: auth.cookie } })).body.text();
    if (!body.includes('http-equiv="refresh"')) break;
    await pause(POLL_MS);
  }
  return { ms: performance.now() - started, status: response.statusCode };
}

/** A `serve --sandbox` child with an operator account and a token, logged in; its peak RSS once the work is done. */
async function withServer(dir: string, name: string, asOf: Date, work: (url: string, auth: { token: string; cookie: string; csrf: string }) => Promise<Omit<Figures, 'peakRssMb'>>): Promise<Figures> {
  const ledger = join(dir, `${name}.db`);
  const passwordFile = join(dir, 'password.txt');
  writeFileSync(passwordFile, `${PASSWORD}\n`);
  spawnSync(process.execPath, [CLI, 'users', 'add', 'bench', '--role', 'operator', '--password-file', passwordFile, '--ledger', ledger], { encoding: 'utf8' });
  const token = spawnSync(process.execPath, [CLI, 'tokens', 'create', '--user', 'bench', '--name', 'bench', '--ledger', ledger], { encoding: 'utf8' }).stdout.trim();
  const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--port', '0', '--ledger', ledger, '--now', asOf.toISOString(), '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [first] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const url = first.replace(/^listening /, '');
    const login = await request(`${url}/login`, { method: 'POST', headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username: 'bench', password: PASSWORD }).toString() });
    await login.body.dump();
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await (await request(`${url}/`, { headers: { cookie } })).body.text())![1]!;
    const figures = await work(url, { token, cookie, csrf });
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return { ...figures, peakRssMb: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024 };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
