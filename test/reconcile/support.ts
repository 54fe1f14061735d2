/** What the reconcile tests share: the world a run reconciles, a fake API and the ledger of the import that sent the orders. */
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { at } from './builders.js';
import { createFakeApi, type FakeApi } from './fake-api.js';

/** Records each payload in `ledger` as an import leaves it: sent and accepted at at(1), in one run. */
export async function recordAccepted(ledger: Ledger, payloads: Iterable<CreateOrderPayload>): Promise<void> {
  const run = await ledger.startRun({ command: 'import', files: [] });
  for (const payload of payloads) {
    const id = payload.orderDetails.customerOrderId;
    await run.recordIntent({ payload });
    await run.markSending(id);
    await run.markAccepted(id, { submittedAt: at(1) });
  }
  await run.finish({ summary: {} });
}

/** What the fake API knows of one of the orders sent (its order, its packages); called in the orders' order. */
export type TellApi = (api: FakeApi, payload: CreateOrderPayload, index: number) => void;

/**
 * A fake API and an in-memory ledger that sent and accepted each of `payloads`; `tell` says what the API
 * knows of each. Without a ledger, the orders are only the API's (a run with --all or --orders).
 */
export async function createWorld(payloads: readonly CreateOrderPayload[], tell: TellApi): Promise<{ api: FakeApi; ledger: Ledger }>;
export async function createWorld(payloads: readonly CreateOrderPayload[], tell: TellApi, options: { withLedger: boolean }): Promise<{ api: FakeApi; ledger: Ledger | undefined }>;
export async function createWorld(payloads: readonly CreateOrderPayload[], tell: TellApi, options = { withLedger: true }): Promise<{ api: FakeApi; ledger: Ledger | undefined }> {
  const world = { api: createFakeApi(), ledger: options.withLedger ? await openLedger(':memory:') : undefined };
  await seedWorld(world, payloads, tell);
  return world;
}

/** The same in a ledger and an API of the caller's (a ledger file, a PostgreSQL ledger). */
export async function seedWorld(world: { api: FakeApi; ledger: Ledger | undefined }, payloads: readonly CreateOrderPayload[], tell: TellApi): Promise<void> {
  if (world.ledger) await recordAccepted(world.ledger, payloads);
  payloads.forEach((payload, index) => tell(world.api, payload, index));
}

/** An API client of the real sandbox, as a run makes one; `now` is the clock of the machine it runs on. */
export function sandboxClient(sandbox: SandboxHandle, now: () => number): ApiClient {
  return createApiClient({ baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, now });
}
