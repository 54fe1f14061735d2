/**
 * The API's clock as its answers tell it (the Date header): read strictly, taken from the latest
 * answer of any kind, moved on by the local clock since; absent or garbage means "unknown".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../src/api/http.js';
import { inventoryItem } from './fixtures.js';
import { useApiClients } from './support.js';
import { startTestServer, type Reply, type TestServer } from '../support/test-server.js';

const LOCAL = Date.parse('2030-03-04T05:06:07Z');
const AHEAD = LOCAL + 5 * 86_400_000;
const OAUTH = '/api/v0/oauth/token';
const ITEMS = '/api/v0/inventory/items';

let server: TestServer;
let clock: number;
const makeClient = useApiClients(() => ({ baseUrl: server.url, clientId: 'client-7', clientSecret: 'very-secret-value', now: () => clock }));

/** A JSON answer whose Date header is `date`, or none at all (node adds one unless told not to). */
function dated(status: number, body: unknown, date: string | null): Reply {
  return (_req, res) => {
    if (date === null) res.sendDate = false;
    res.writeHead(status, { 'content-type': 'application/json', ...(date === null ? {} : { date }) });
    res.end(JSON.stringify(body));
  };
}

const token = (date: string | null) => dated(200, { accessToken: 'token-1', tokenType: 'bearer', expiresIn: 3600 }, date);
const httpDate = (ms: number) => new Date(ms).toUTCString();

beforeEach(async () => {
  clock = LOCAL;
  server = await startTestServer();
});

afterEach(async () => {
  await server.close();
});

describe('parseHttpDate', () => {
  it('reads an IMF-fixdate to the second', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.parse('1994-11-06T08:49:37Z'));
    expect(parseHttpDate(' Sat, 29 Feb 2031 00:00:00 GMT')).toBeNull();
    expect(parseHttpDate('Thu, 29 Feb 2024 23:59:59 GMT')).toBe(Date.parse('2024-02-29T23:59:59Z'));
  });

  it('gives null for an absent header, garbage, other forms and dates that do not exist', () => {
    for (const value of [undefined, '', 'garbage', '1', '2030-03-04T05:06:07Z', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:37 UTC', 'Sun, 31 Nov 1994 08:49:37 GMT', 'Sun, 06 Foo 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 24:00:00 GMT']) {
      expect(parseHttpDate(value), String(value)).toBeNull();
    }
  });
});

describe('the API clock', () => {
  it('is heard from the token exchange when nothing was answered yet, then moves on with the local clock', async () => {
    server.route('POST', OAUTH, token(httpDate(AHEAD)));
    const client = makeClient();
    expect((await client.serverNow())?.toISOString()).toBe(new Date(AHEAD).toISOString());
    clock += 90_000;
    expect((await client.serverNow())?.toISOString()).toBe(new Date(AHEAD + 90_000).toISOString());
    // One exchange: the token is kept for the calls that follow.
    expect(server.requestsTo('POST', OAUTH)).toHaveLength(1);
  });

  it('follows the latest answer, an error included', async () => {
    server.route('POST', OAUTH, token(httpDate(AHEAD)));
    server.route('GET', ITEMS, dated(200, { data: [inventoryItem()], requestId: 'r' }, httpDate(AHEAD + 3_600_000)), dated(503, { message: 'busy' }, httpDate(AHEAD + 7_200_000)));
    const client = makeClient();
    await client.listInventory();
    expect((await client.serverNow())?.getTime()).toBe(AHEAD + 3_600_000);
    await expect(client.listInventory()).rejects.toMatchObject({ status: 503 });
    expect((await client.serverNow())?.getTime()).toBe(AHEAD + 7_200_000);
  });

  it('is unknown (null) when the answers carry no Date header, or one that is not a date', async () => {
    for (const date of [null, 'garbage', '1']) {
      server.route('POST', OAUTH, token(date));
      server.route('GET', ITEMS, dated(200, { data: [inventoryItem()], requestId: 'r' }, date));
      const client = makeClient();
      expect(await client.serverNow(), String(date)).toBeNull();
      await client.listInventory();
      expect(await client.serverNow(), String(date)).toBeNull();
    }
  });

  it('stops waiting for the token exchange when the caller gives up', async () => {
    server.route('POST', OAUTH, () => undefined);
    // The shared token request itself runs on to its deadline: a short one, so the test ends soon.
    const client = makeClient({ timeoutMs: 300 });
    const stop = new AbortController();
    const pending = client.serverNow({ signal: stop.signal });
    stop.abort(new Error('run stopped'));
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
  });
});
