// `npm run bench`: every benchmark in this folder, one after another, each in its own
// process: bench/*.bench.ts, bench/emulator*.ts and bench/plan*.ts files whose header has a "Run:" line
// (helpers such as emulator-child.ts and load-child.ts have none and are skipped): among them
// micro.bench.ts, the per-call costs against their peers (tinybench).
// Extra arguments go to every benchmark.   Run: npm run bench [-- args]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const files = readdirSync(here)
  .filter((f) => (f.endsWith('.bench.ts') || ((f.startsWith('emulator') || f.startsWith('plan')) && f.endsWith('.ts'))) && f !== 'index.ts')
  .filter((f) => /^\/\/.*\bRun:/m.test(readFileSync(path.join(here, f), 'utf8').split('\n').slice(0, 15).join('\n')))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, f), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`bench/${f} exited with ${r.status ?? r.signal ?? 'unknown'}`);
  }
}
console.log(`\n${files.length - failed} of ${files.length} benchmarks ran`);
process.exitCode = failed > 0 ? 1 : 0;
