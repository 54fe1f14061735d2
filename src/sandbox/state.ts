/**
 * The sandbox's memory: accepted orders, stock per center, counters, and the fulfillment plans
 * derived from orders (cached; they never change once made). Acceptance is synchronous, so two
 * concurrent posts can never both take the last unit or both create one customerOrderId.
 */
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { Catalogue, StockLevels } from './catalogue.js';
import { planFulfillment, type PlanContext } from './fulfillment.js';
import type { FulfillmentPlan, PlannedPackage, PlannedStatus, StoredOrder } from './model.js';
import { rngFor } from './random.js';
import { availableInNetwork, reserveUnits, shuffled } from './stock.js';
import { statusAt } from './views.js';

export type AcceptOutcome =
  | { kind: 'accepted'; order: StoredOrder }
  | { kind: 'duplicate' }
  | { kind: 'out_of_stock'; productId: string };

export interface Counters {
  postsReceived: number;
  duplicatesRejected: number;
}

export interface SandboxState {
  readonly catalogue: Catalogue;
  readonly stock: StockLevels;
  readonly counters: Counters;
  hasOrder(customerOrderId: string): boolean;
  orderCount(): number;
  getOrder(customerOrderId: string): StoredOrder | undefined;
  /** Orders in acceptance order. */
  listOrders(): StoredOrder[];
  planOf(order: StoredOrder): FulfillmentPlan;
  /** Every package of every order, sorted by (createdAtMs, packageId): stable pages while the clock moves. */
  allPackages(): readonly PlannedPackage[];
  /** Changes whenever the set of packages changes (new plans, reset, restore). */
  packagesVersion(): number;
  acceptOrder(payload: CreateOrderPayload, nowMs: number): AcceptOutcome;
  /** Counts a creation refused because its customerOrderId exists. */
  recordDuplicate(): void;
  /** Line statuses (original and added lines) visible at nowMs, counted. */
  countLineStatuses(nowMs: number): Record<string, number>;
  /** Forget orders and counters, restore the catalogue's initial stock. */
  reset(): void;
  /** Put back orders and stock read from a state file. */
  restore(orders: StoredOrder[], stock: StockLevels, counters: Counters): void;
  /** Called after every mutation (persistence hooks in here). */
  onChange: (() => void) | null;
}

export function createSandboxState(catalogue: Catalogue, planContext: PlanContext): SandboxState {
  const orders = new Map<string, StoredOrder>();
  const plans = new Map<string, FulfillmentPlan>();
  const stock: StockLevels = cloneStock(catalogue.stock);
  const counters: Counters = { postsReceived: 0, duplicatesRejected: 0 };
  let packages: PlannedPackage[] = [];
  let packagesSorted = true;
  let unplanned: StoredOrder[] = [];
  let version = 0;

  const planOf = (order: StoredOrder): FulfillmentPlan => {
    const id = order.payload.orderDetails.customerOrderId;
    let plan = plans.get(id);
    if (!plan) {
      plan = planFulfillment(order, planContext);
      plans.set(id, plan);
      for (const p of plan.packages) packages.push(p);
      packagesSorted = false;
      version++;
    }
    return plan;
  };

  const state: SandboxState = {
    catalogue,
    stock,
    counters,
    onChange: null,
    hasOrder: (id) => orders.has(id),
    orderCount: () => orders.size,
    getOrder: (id) => orders.get(id),
    listOrders: () => [...orders.values()],
    planOf,
    packagesVersion: () => version,
    allPackages() {
      // Plans are made lazily (creation stays cheap); tracking needs every order's packages.
      if (unplanned.length > 0) {
        for (const order of unplanned) planOf(order);
        unplanned = [];
      }
      if (!packagesSorted) {
        packages.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0));
        packagesSorted = true;
      }
      return packages;
    },
    acceptOrder(payload, nowMs) {
      const id = payload.orderDetails.customerOrderId;
      if (orders.has(id)) {
        state.recordDuplicate();
        return { kind: 'duplicate' };
      }
      for (const item of payload.orderDetails.lineItems) {
        const product = catalogue.products.get(item.productId);
        if (!product || availableInNetwork(stock, catalogue, product) === 0) return { kind: 'out_of_stock', productId: item.productId };
      }
      const preference = shuffled(catalogue.centers, rngFor(planContext.seed, `reserve:${id}`));
      const allocations = payload.orderDetails.lineItems.map((item) =>
        reserveUnits(stock, catalogue, catalogue.products.get(item.productId)!, item.quantity, preference),
      );
      const order: StoredOrder = { payload, createdAtMs: nowMs, allocations };
      orders.set(id, order);
      unplanned.push(order);
      state.onChange?.();
      return { kind: 'accepted', order };
    },
    recordDuplicate() {
      counters.duplicatesRejected++;
      state.onChange?.();
    },
    countLineStatuses(nowMs) {
      const counts: Record<string, number> = {};
      for (const order of orders.values()) {
        for (const line of planOf(order).lines) {
          const status: PlannedStatus | null = statusAt(line, nowMs);
          if (status) counts[status] = (counts[status] ?? 0) + 1;
        }
      }
      return counts;
    },
    reset() {
      orders.clear();
      plans.clear();
      packages = [];
      unplanned = [];
      packagesSorted = true;
      version++;
      replaceStock(stock, catalogue.stock);
      counters.postsReceived = 0;
      counters.duplicatesRejected = 0;
      state.onChange?.();
    },
    restore(saved, savedStock, savedCounters) {
      version++;
      orders.clear();
      plans.clear();
      packages = [];
      unplanned = [];
      for (const order of saved) {
        orders.set(order.payload.orderDetails.customerOrderId, order);
        unplanned.push(order);
      }
      replaceStock(stock, savedStock);
      Object.assign(counters, savedCounters);
    },
  };
  return state;
}

export function cloneStock(stock: StockLevels): StockLevels {
  return new Map([...stock].map(([center, levels]) => [center, new Map(levels)]));
}

function replaceStock(target: StockLevels, source: StockLevels): void {
  target.clear();
  for (const [center, levels] of source) target.set(center, new Map(levels));
}
