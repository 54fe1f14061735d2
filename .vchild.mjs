import { validateFiles } from './dist/commands/validate.js';
import { silentLogger } from './dist/log.js';
const [file, out, nowIso] = process.argv.slice(2);
const t = performance.now();
const r = await validateFiles({ files: [file], out, context: { now: new Date(nowIso), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, logger: silentLogger });
console.log(JSON.stringify({ ms: Math.round(performance.now() - t), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), orders: r.report.orders.length }));
