#!/usr/bin/env node
// Placeholder entry until the commands land; replaced by the real CLI.
console.error('order-batch: not built yet');
process.exit(2);
