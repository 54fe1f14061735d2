/** What the sending tests share: one submission job built around a payload. */
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import type { SubmissionJob } from '../../src/import/send/submit.js';

/** A job for this payload from one spreadsheet row; file and sha256 name the sheet it came from. */
export function jobOf(payload: CreateOrderPayload, { row = 2, file = 'orders.csv', sha256 = 'abc' }: { row?: number; file?: string; sha256?: string } = {}): SubmissionJob {
  return { order: { rows: [row] } as unknown as SubmissionJob['order'], payload, sheet: { columns: [], headers: [] } as unknown as SubmissionJob['sheet'], file, sha256 };
}
