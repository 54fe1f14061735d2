/** What the route modules share: the sandbox's state, clock, tokens and faults. */
import type { createOrderSchema } from '../../contract/schemas.js';
import type { Logger } from '../../log.js';
import type { TokenService } from '../auth.js';
import type { SandboxClock } from '../clock.js';
import type { FaultInjector, LatencyClock } from '../faults.js';
import type { InFlightCounter } from '../in-flight.js';
import type { SandboxStats } from '../options.js';
import type { SandboxState } from '../state.js';

export interface SandboxContext {
  state: SandboxState;
  clock: SandboxClock;
  tokens: TokenService;
  faults: FaultInjector;
  latencyClock: LatencyClock;
  schema: ReturnType<typeof createOrderSchema>;
  logger: Logger;
  /** POST /api/v0/orders from arrival to the end of the answer (or of the connection). */
  postsInFlight: InFlightCounter;
  stats(): SandboxStats;
}
