/**
 * Whether the service can do its work: the ledger answers within a short bound and its schema is the
 * one this process opened (another version of order-batch may have upgraded it since). Pure of HTTP.
 */
export interface Readiness {
  isReady: boolean;
  reason?: string;
  /** What the ledger threw, when it did (the ledger has counted its own failures among its errors). */
  error?: unknown;
}

/** A probe answers fast or says no: Kubernetes' default probe timeout is one second, a load balancer's a few. */
export const READINESS_TIMEOUT_MS = 2_000;

export async function checkReadiness(describe: () => Promise<{ schemaVersion: string }>, expectedSchema: string, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
  try {
    const answer = await Promise.race([describe(), late]);
    if (answer === 'late') return { isReady: false, reason: `the ledger did not answer within ${timeoutMs / 1000} s` };
    if (answer.schemaVersion !== expectedSchema) return { isReady: false, reason: `the ledger's schema is ${answer.schemaVersion}, not ${expectedSchema} as when this process started: restart it with the matching version of order-batch` };
    return { isReady: true };
  } catch (error) {
    return { isReady: false, reason: `the ledger does not answer: ${(error as Error).message}`, error };
  } finally {
    clearTimeout(timer);
  }
}
