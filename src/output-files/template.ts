/** `order-batch template`: the blank order sheet, from the same column definitions the checker reads. */
import { UsageError } from '../errors.js';
import { writeTemplate } from './write-template.js';
import { formatOfPath } from './output-path.js';

export async function templateCommand(options: { format?: 'xlsx' | 'csv'; out?: string; sourcesOfSale: readonly string[] }): Promise<string> {
  const fromPath = options.out ? formatOfPath(options.out) : null;
  if (options.out && !fromPath) throw new UsageError(`--out ${options.out}: the template must end in .xlsx or .csv.`);
  if (options.format && fromPath && options.format !== fromPath) {
    throw new UsageError(`--format ${options.format} does not match --out ${options.out}.`);
  }
  const format = options.format ?? fromPath ?? 'xlsx';
  const path = options.out ?? `order-template.${format}`;
  await writeTemplate(path, { format, sourcesOfSale: options.sourcesOfSale });
  return path;
}
