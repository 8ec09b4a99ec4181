// `qbench init`: the files a project starts from: a commented qbench.config.ts, one example
// load scenario, and a GitHub Actions workflow that gates on the emulator, compares the load
// result with the baseline kept as an artifact, writes the markdown summary into the job
// summary and uploads the reports.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { configError } from '../errors.js';

export const CONFIG_TEMPLATE = `// qbench configuration: read by qbench check, load, fuzz, worker, start and emulate. Flags on
// the command line win over what is written here. Validate by running one of them: every
// problem of this file is reported at once.
import { defineConfig } from 'qbench/config';

export default defineConfig({
  // Named targets: \`qbench check --target local\`, \`qbench load ... --target staging\`.
  targets: {
    // The emulator, started in-process: no account, no key.
    local: { url: 'emulator' },
    // A deployment: the URL may name the endpoint (.../v2/<endpoint_id>) or give it as \`endpoint\`.
    // apiKeyEnv is the NAME of the variable holding the key, never the key itself.
    // staging: { url: 'https://api.example.com/v2/<endpoint_id>', apiKeyEnv: 'STAGING_API_KEY' },
  },
  // Which conformance checks run: profile quick (each check within 60 s) or full; only/skip
  // take check ids, id prefixes ending in *, or tags; expectations names a known-failures file.
  conformance: { profile: 'quick' },
  // Budgets of \`qbench fuzz\`.
  fuzz: { maxDuration: '45s' },
  // \`qbench emulate\` (a long-running emulator for your own workers): port, the NAME of the
  // variable holding the key it accepts, endpoints, time scale, workers, limits, faults.
  // emulator: { port: 8000, apiKeyEnv: 'QBENCH_API_KEY', endpoints: ['demo'], timeScale: 1 },
});
`;

export const SCENARIO_TEMPLATE = `// An example load scenario: a steady arrival rate of /runsync and /health with k6-style
// thresholds as the verdict. Run it with \`npx qbench load scenarios/example.ts --target local\`
// (\`--param rate=20\` for another rate: the parameter is declared below, a bad value is refused).
import { defineScenario, param } from 'qbench/suite';

export default defineScenario({
  params: { rate: param.number({ above: 0, max: 1000, unit: 'requests/s' }).default(10) },
  create: ({ params }) => ({
    name: 'example',
    description: \`runsync and health at \${params.rate} requests/s for 3 s\`,
    executor: 'constant-arrival-rate',
    ratePerSec: params.rate,
    durationMs: 3_000,
    steps: [{ kind: 'runsync', input: { prompt: 'hello' } }, { kind: 'health' }],
    thresholds: {
      'runsync.errors.rate': ['rate<0.01'],
      'runsync.latency': ['p(99)<2000'],
    },
  }),
});
`;

export const WORKFLOW_TEMPLATE = `# qbench gate: conformance and a load run against the emulator, the load result compared with
# the baseline kept from the default branch, the markdown summary in the job summary, and every
# report uploaded. Written by \`qbench init\`.
name: qbench
on:
  push:
    branches: [main]
  pull_request:
permissions:
  contents: read
  actions: read
jobs:
  qbench:
    runs-on: ubuntu-latest
    env:
      GH_TOKEN: \${{ github.token }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - name: Install
        run: npm ci
      - name: Conformance against the emulator
        run: npx qbench check --target local --out reports/check
      - name: Load against the emulator
        run: npx qbench load scenarios/example.ts --target local --out reports/load
      - name: Baseline from the default branch
        run: gh run download --name qbench-baseline --dir baseline || echo "no baseline yet"
      - name: Compare with the baseline
        run: if [ -f baseline/result.json ]; then npx qbench compare baseline/result.json reports/load/result.json --format md --out reports/compare >> "$GITHUB_STEP_SUMMARY"; fi
      - name: Summary
        if: always()
        run: if [ -f reports/load/result.json ]; then npx qbench report reports/load/result.json --md >> "$GITHUB_STEP_SUMMARY"; fi
      - name: Upload the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: qbench-reports
          path: reports/
      - name: Keep this run as the baseline
        if: github.ref == 'refs/heads/main'
        uses: actions/upload-artifact@v4
        with:
          name: qbench-baseline
          path: reports/load/result.json
`;

export const SCAFFOLD_FILES: Readonly<Record<string, string>> = {
  'qbench.config.ts': CONFIG_TEMPLATE,
  'scenarios/example.ts': SCENARIO_TEMPLATE,
  '.github/workflows/qbench.yml': WORKFLOW_TEMPLATE,
};

/** Write the scaffold into `dir`; refuses to overwrite an existing file unless `force`. */
export async function writeScaffold(dir: string, force = false): Promise<string[]> {
  const existing = Object.keys(SCAFFOLD_FILES).filter((f) => existsSync(join(dir, f)));
  if (existing.length > 0 && !force) throw configError(`qbench init: ${existing.join(', ')} already exist; --force overwrites them`);
  const written: string[] = [];
  for (const [rel, text] of Object.entries(SCAFFOLD_FILES)) {
    const file = join(dir, rel);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    written.push(rel);
  }
  return written;
}
