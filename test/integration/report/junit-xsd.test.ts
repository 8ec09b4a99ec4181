// JUnit XML valid against the common JUnit schema (test/unit/report/fixtures/junit.xsd), checked
// by xmllint where it is installed; the structure alone is checked in test/unit/report/junit.test.ts.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { renderComparisonJunit, renderJunit } from '../../../src/report/render/junit.js';
import { hostileJunitResult, regressedComparison } from '../../unit/report/junit-samples.js';

const XSD = fileURLToPath(new URL('../../unit/report/fixtures/junit.xsd', import.meta.url));
const XMLLINT = ['/usr/bin/xmllint', '/usr/local/bin/xmllint'].find((p) => existsSync(p));
if (!XMLLINT) console.warn('junit schema validation with xmllint skipped: install libxml2-utils');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-junit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function xmllint(xml: string, name: string): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(file, xml);
  await promisify(execFile)(XMLLINT!, ['--noout', '--schema', XSD, file]);
}

describe.skipIf(!XMLLINT)('JUnit XML against the schema', () => {
  it('a result with every kind of test case and hostile content', async () => {
    await xmllint(renderJunit(hostileJunitResult('sk-live-SECRET-123456')), 'result.xml');
  });

  it('a comparison with regressions', async () => {
    await xmllint(renderComparisonJunit(regressedComparison()), 'comparison.xml');
  });
});
