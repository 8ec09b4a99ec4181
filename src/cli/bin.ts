#!/usr/bin/env node
// The thin bin: everything lives in main.ts so tests can call it without a process.
import { defaultIo, main } from './main.js';

const ac = new AbortController();
let interrupted = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    interrupted += 1;
    // A second signal means "stop now".
    if (interrupted > 1) process.exit(130);
    ac.abort(new Error(`received ${sig}`));
  });
}
process.exitCode = await main(process.argv.slice(2), defaultIo(ac.signal));
