/** Starting the web app for a test: its own temp folder, the embedded sandbox, the samples' date pinned. */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FormData, request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { changeAccount } from '../../src/accounts/manage.js';
import type { Role } from '../../src/accounts/roles.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { startWebApp, type WebApp, type WebAppOptions } from '../../src/web/server.js';
import { makeTempFolder } from '../support/temp-dir.js';

/** The samples' orders were placed 2026-11-16..19; checked as of this instant, they pass on any date. */
export const SAMPLES_AS_OF = new Date('2026-11-20T12:00:00Z');

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const SAMPLES = join(REPO_ROOT, 'samples');

export interface TestApp {
  app: WebApp;
  /** What it was started with (another instance on the same ledger starts with the same). */
  options: WebAppOptions;
  dir: string;
  workDir: string;
  ledgerPath: string;
  /** The app's Host header value (127.0.0.1:PORT). */
  host: string;
  close(): Promise<void>;
}

/** Accounts made before the app starts (their passwords are the ones given). */
export type TestAccount = { name: string; role: Role; password: string };

export async function startTestApp(overrides: Partial<WebAppOptions> & { accounts?: readonly TestAccount[] } = {}): Promise<TestApp> {
  const dir = makeTempFolder('web');
  const workDir = join(dir, 'web');
  const { accounts = [], ...options } = overrides;
  const ledgerPath = options.ledgerPath ?? join(dir, 'ledger.db');
  if (accounts.length > 0) await addAccounts(ledgerPath, accounts, options.clock);
  const started: WebAppOptions = {
    port: 0,
    useSandbox: true,
    connection: { auth: 'oauth' },
    ledgerPath,
    workDir,
    context: { now: SAMPLES_AS_OF, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
    concurrency: 4,
    maxAttempts: 3,
    lateAfterDays: 3,
    logger: silentLogger,
    now: SAMPLES_AS_OF,
    // The test's own sandbox world, also on a PostgreSQL ledger (whose default is .order-batch here).
    sandboxStatePath: join(dir, 'sandbox', 'sandbox-state.json'),
    ...options,
  };
  const app = await startWebApp(started);
  return {
    app,
    options: started,
    dir,
    workDir,
    ledgerPath,
    host: new URL(app.url).host,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Session {
  cookie: string;
  csrf: string;
}

export async function addAccounts(ledgerPath: string, accounts: readonly TestAccount[], clock?: () => Date): Promise<void> {
  const ledger = await openLedger(ledgerPath, clock ? { now: clock } : {});
  try {
    for (const account of accounts) await changeAccount(ledger, { name: 'test-admin', via: 'cli', address: null }, { kind: 'add', ...account });
  } finally {
    await ledger.close();
  }
}

/** Logs in as a browser would (the form's POST), then opens the start page: the session cookie and its CSRF token. */
export async function logIn(url: string, name: string, password: string): Promise<Session> {
  const response = await request(`${url}/login`, {
    method: 'POST',
    headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: name, password }).toString(),
  });
  await response.body.text();
  if (response.statusCode !== 303) throw new Error(`login of ${name} answered ${response.statusCode}`);
  const setCookie = response.headers['set-cookie'];
  const cookie = String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0]!;
  const page = await (await request(`${url}/`, { headers: { cookie } })).body.text();
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)?.[1];
  if (!csrf) throw new Error('no CSRF token on the start page after logging in');
  return { cookie, csrf };
}

/** What a browser holds after opening the start page: the session cookie and the page's CSRF token. */
export async function openSession(url: string): Promise<Session> {
  const response = await request(`${url}/`);
  const setCookie = response.headers['set-cookie'];
  const cookie = String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0]!;
  const page = await response.body.text();
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)?.[1];
  if (!csrf) throw new Error('no CSRF token on the start page');
  return { cookie, csrf };
}

/** A test app with one browser's session open in it (no accounts: a session without logging in). */
export async function startAppWithSession(overrides: Parameters<typeof startTestApp>[0] = {}): Promise<{ web: TestApp; session: Session }> {
  const web = await startTestApp(overrides);
  return { web, session: await openSession(web.app.url) };
}

/**
 * startAppWithSession for a describe block (or a file): started before its tests, closed after them.
 * The two objects are filled in place when the app starts, so they can be destructured at once.
 */
export function useAppWithSession(overrides: Parameters<typeof startTestApp>[0] = {}): { web: TestApp; session: Session } {
  const web = {} as TestApp;
  const session = {} as Session;
  beforeAll(async () => {
    const started = await startAppWithSession(overrides);
    Object.assign(web, started.web);
    Object.assign(session, started.session);
  });
  afterAll(async () => {
    await web.close?.();
  });
  return { web, session };
}

/**
 * Uploads a sheet through the form, submits it and waits until its job is done, as a browser on the
 * job page would: the upload's and the job's ids.
 */
export async function submitSheet(url: string, session: Session, fileName: string, content: Buffer | string): Promise<{ upload: string; job: string }> {
  const headers = { cookie: session.cookie, origin: url };
  const uploaded = await request(`${url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName, content }), headers });
  await uploaded.body.text();
  const upload = String(uploaded.headers.location).split('/').pop()!;
  const submitted = await request(`${url}/uploads/${upload}/submit`, { method: 'POST', body: `_csrf=${session.csrf}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
  await submitted.body.text();
  const job = String(submitted.headers.location).split('/').pop()!;
  // Polled with a bound on the number of looks, never a wall-clock wait.
  for (let looks = 0, state = ''; state !== 'done'; looks++) {
    if (looks === 10_000) throw new Error(`job ${job} was still ${state} after ${looks} looks`);
    state = ((await (await request(`${url}/jobs/${job}/progress`, { headers: { ...headers, accept: 'application/json' } })).body.json()) as { state: string }).state;
  }
  return { upload, job };
}

/** A multipart body with the fields in the order given (the CSRF field first, as the page's form has it). */
export function uploadForm(parts: { csrf?: string; fileName: string; content: Buffer | string; sheet?: string }): FormData {
  const form = new FormData();
  if (parts.csrf !== undefined) form.append('_csrf', parts.csrf);
  if (parts.sheet !== undefined) form.append('sheet', parts.sheet);
  form.append('file', new Blob([parts.content]), parts.fileName);
  return form;
}

/** The upload folders the app keeps (none yet: an empty list). */
export function uploadFolders(web: TestApp): string[] {
  try {
    return readdirSync(join(web.workDir, 'uploads'));
  } catch {
    return [];
  }
}

export const CHROMIUM = '/usr/bin/chromium';
/** Whether the browser tests run: where Chromium is installed, and always in CI (where a missing one fails them). */
export const canRunChromium = existsSync(CHROMIUM) || Boolean(process.env.CI);

export interface Chromium {
  browser: import('playwright-core').BrowserContext;
  page: import('playwright-core').Page;
  close(): Promise<void>;
}

/** A headless Chromium with a profile of its own, downloads accepted, at a laptop's window size. */
export async function launchChromium(): Promise<Chromium> {
  const profile = makeTempFolder('chromium');
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1366, height: 768 },
    acceptDownloads: true,
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  return {
    browser,
    page,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
