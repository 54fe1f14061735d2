/**
 * `npm run bench -- metrics`: what Prometheus scraping /metrics every second costs the web app, on the
 * 50-upload web bench: the same run without and with the scraper, alternated, the best of each.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeLargeCsv } from './order-sheets.js';
import { benchWebUploads } from './scale.js';

const UPLOADS = 50;
const ROUNDS = 2;

export async function benchMetrics(dataDir: string, line: (text: string) => void): Promise<void> {
  line(`\n== metrics: /metrics scraped every second during ${UPLOADS} uploads of 5 MB sheets (best of ${ROUNDS} each, alternated)`);
  const asOf = new Date();
  mkdirSync(dataDir, { recursive: true });
  const upload = join(dataDir, 'upload-5mb-metrics.csv');
  await writeLargeCsv(upload, 20_000, asOf);
  let plain = Number.POSITIVE_INFINITY;
  let scraped = Number.POSITIVE_INFINITY;
  let scrapes = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      plain = Math.min(plain, (await benchWebUploads(upload, UPLOADS, asOf)).ms);
      const run = await benchWebUploads(upload, UPLOADS, asOf, { scrapeEveryMs: 1_000 });
      if (run.ms < scraped) {
        scraped = run.ms;
        scrapes = run.scrapes;
      }
    }
  } finally {
    rmSync(upload, { force: true });
  }
  const cost = (scraped - plain) / plain;
  line(`without scraping: ${Math.round(plain)} ms (${((UPLOADS * 1000) / plain).toFixed(2)} uploads/s)`);
  line(`scraped every 1 s: ${Math.round(scraped)} ms (${((UPLOADS * 1000) / scraped).toFixed(2)} uploads/s, ${scrapes} scrapes)`);
  line(`cost: ${(cost * 100).toFixed(1)}% of throughput (target < 2%: ${cost < 0.02 ? 'met' : 'NOT met'})`);
}
