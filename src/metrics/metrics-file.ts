/**
 * --metrics-file: a cron run's metrics in Prometheus' text format for node_exporter's textfile
 * collector, written whole under a temporary name and renamed, so the collector never reads half.
 */
import { writeFileAtomically } from '../output-files/atomic-file.js';
import { describeFileSystemError } from '../errors.js';
import type { Metrics } from './registry.js';

export async function writeMetricsFile(path: string, metrics: Metrics): Promise<void> {
  const text = await metrics.registry.metrics();
  await writeMetricsText(path, text).catch((error: unknown) => {
    throw new Error(`the metrics file ${path} could not be written: ${describeFileSystemError(error)}`, { cause: error });
  });
}

async function writeMetricsText(path: string, text: string): Promise<void> {
  await writeFileAtomically(path, async (out) => {
    await new Promise<void>((resolve) => out.end(text, () => resolve()));
  });
}
