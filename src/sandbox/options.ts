/** What startSandbox takes and gives back. Every CLI flag of PRODUCT.md section 7 has a field here. */
import type { Logger } from '../log.js';
import type { ClientCredentials } from './auth.js';
import type { FaultSettings, LatencyClock } from './faults.js';
import type { FulfillmentRates } from './model.js';

export interface SandboxOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The read-write client; default sandbox-client / sandbox-secret. */
  clientId?: string;
  clientSecret?: string;
  /** A client whose tokens read but get 403 on order creation; default sandbox-reader / sandbox-reader-secret. */
  readOnlyClient?: ClientCredentials;
  /** Seeds fulfillment stories, stock picks and faults; default 1. */
  seed?: number;
  /** Persist state to this JSON file (loaded at start, written atomically after changes, flushed on close). */
  statePath?: string;
  /** Delay every /api/v0 answer by this many real ms. */
  latencyMs?: number;
  /** For tests: the real time latency is measured in; default performance.now and timers. */
  latencyClock?: LatencyClock;
  /** Share of /api/v0 requests answered 5xx/429 (3/4) or reset (1/4). */
  faultRate?: number;
  /** Token lifetime in seconds; default 3600. */
  tokenTtlSeconds?: number;
  /**
   * Simulated clock start (Date or ISO text); default the real time at start. Over a saved state
   * (statePath) the clock resumes from the saved one and never starts earlier than it.
   */
  startTime?: Date | string;
  /** When true the simulated clock moves only by advanceClock; default false (it runs with real time). */
  freezeClock?: boolean;
  /** A JSON inventory file replacing the seeded catalogue (see inventory-file.ts). */
  inventoryPath?: string;
  /** Shares of split shipments, replaced packages and canceled lines. */
  rates?: Partial<FulfillmentRates>;
  /** Allowed sourceOfSale values; default the contract's ["OtherMarketplace"]. */
  sourcesOfSale?: readonly string[];
  /** Default silent. Request logging stays off unless logRequests is true. */
  logger?: Logger;
  logRequests?: boolean;
}

export interface SandboxStats {
  /** Orders stored. */
  orders: number;
  /** POST /api/v0/orders requests received (counted on arrival, before faults and checks). */
  postsReceived: number;
  /** Creations refused because the customerOrderId already existed (409). */
  duplicatesRejected: number;
  /** The most POST /api/v0/orders in flight at once (arrival to the end of the answer) since start, reset or reset-max. */
  maxPostsInFlight: number;
  /** Line items (original and added) by their status at the sandbox's now. */
  byStatus: Record<string, number>;
}

export interface SandboxHandle {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Moves the simulated clock forward (hours >= 0). */
  advanceClock(hours: number): void;
  now(): Date;
  stats(): SandboxStats;
  setFaults(faults: FaultSettings): void;
  clientId: string;
  clientSecret: string;
  readOnlyClient: ClientCredentials;
  /** Forgets every order and restores the initial stock (as POST /sandbox/reset). */
  reset(): void;
}

export const SANDBOX_DEFAULTS = {
  host: '127.0.0.1',
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret',
  readOnlyClient: { clientId: 'sandbox-reader', clientSecret: 'sandbox-reader-secret' },
  seed: 1,
  tokenTtlSeconds: 3600,
} as const;
