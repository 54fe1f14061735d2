/**
 * Regenerates the committed templates (templates/order-template.xlsx and .csv) from the column
 * definitions: `npm run build && node dist/output-files/generate-templates.js`. A test checks they are current.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DEFAULT_SOURCES_OF_SALE } from '../contract/enums.js';
import { writeTemplate } from './write-template.js';

/** templates/ at the repository root, from src/output-files or dist/output-files alike. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

export async function generateTemplates(dir: string = TEMPLATES_DIR, sourcesOfSale: readonly string[] = DEFAULT_SOURCES_OF_SALE): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const format of ['xlsx', 'csv'] as const) {
    const path = join(dir, `order-template.${format}`);
    await writeTemplate(path, { format, sourcesOfSale });
    written.push(path);
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = await generateTemplates();
  for (const path of written) console.log(`wrote ${path}`);
}
