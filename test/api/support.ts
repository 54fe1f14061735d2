/** What the API client's tests share: clients made against the file's test server, each closed after its test. */
import { afterEach } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClientOptions } from '../../src/api/types.js';

type ApiClient = ReturnType<typeof createApiClient>;

/**
 * `makeClient(extra)`: a client of `base()` with `extra` over it. `base` is read at each call, so it sees the
 * server and the clock of the test that calls it.
 */
export function useApiClients(base: () => ApiClientOptions): (extra?: Partial<ApiClientOptions>) => ApiClient {
  const clients: ApiClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  return (extra = {}) => {
    const client = createApiClient({ ...base(), ...extra });
    clients.push(client);
    return client;
  };
}
