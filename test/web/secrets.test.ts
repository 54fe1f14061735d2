import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support.js';

let web: TestApp | undefined;
afterEach(async () => {
  await web?.close();
});

it('shows the API address without the password FULFILLMENT_BASE_URL carries, on every page', async () => {
  web = await startTestApp({ useSandbox: false, connection: { auth: 'oauth', baseUrl: 'https://ops:hunter2@api.example.com', clientId: 'id', clientSecret: 'secret' } });
  for (const path of ['/', '/history']) {
    const page = await (await request(`${web.app.url}${path}`)).body.text();
    expect(page).not.toContain('hunter2');
    if (path === '/') expect(page).toContain('https://ops:***@api.example.com');
  }
});
