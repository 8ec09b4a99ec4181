// Reading a saved result (qbench report / compare / merge): parse, refuse a schema major we do
// not know, validate against the model, and report every problem at once.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { QbenchError } from '../errors.js';
import { QbenchResult, SCHEMA_VERSION } from './model.js';

/** The result's file name in a run's report directory. */
export const RESULT_FILE = 'result.json';

const major = (v: string): number => Number(v.split('.')[0]);

/** Validate a parsed JSON value as a QbenchResult; `source` names it in errors. */
export function parseResult(value: unknown, source = 'result'): QbenchResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new QbenchError('QB_ERR_CONFIG', `${source}: not a qbench result (expected a JSON object)`, { source });
  }
  const obj = value as Record<string, unknown>;
  if (obj['kind'] !== 'qbench-result') {
    const hint = obj['kind'] === 'qbench-comparison' ? ' (it is a comparison; compare takes two results)' : '';
    throw new QbenchError('QB_ERR_CONFIG', `${source}: not a qbench result: "kind" is ${JSON.stringify(obj['kind'])}, expected "qbench-result"${hint}`, { source });
  }
  const version = obj['schemaVersion'];
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new QbenchError('QB_ERR_CONFIG', `${source}: "schemaVersion" is missing or not MAJOR.MINOR.PATCH`, { source });
  }
  if (major(version) !== major(SCHEMA_VERSION)) {
    throw new QbenchError(
      'QB_ERR_CONFIG',
      `${source}: schemaVersion ${version} has major ${major(version)}; this qbench ${major(version) > major(SCHEMA_VERSION) ? 'is older and ' : ''}reads major ${major(SCHEMA_VERSION)} only (schema ${SCHEMA_VERSION}). ${major(version) > major(SCHEMA_VERSION) ? 'Upgrade qbench.' : 'Re-run with this qbench to produce a current result.'}`,
      { source, schemaVersion: version },
    );
  }
  const parsed = QbenchResult.safeParse(value);
  if (!parsed.success) {
    throw new QbenchError('QB_ERR_CONFIG', `${source}: not a valid qbench result:\n${z.prettifyError(parsed.error)}`, { source });
  }
  return parsed.data;
}

/** Read and validate a result file. */
export async function readResult(path: string): Promise<QbenchResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new QbenchError('QB_ERR_USAGE', `${path}: cannot read the result file (${code === 'ENOENT' ? 'no such file' : (code ?? String(e))})`, { path });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new QbenchError('QB_ERR_CONFIG', `${path}: not JSON (${e instanceof Error ? e.message : String(e)})`, { path });
  }
  return parseResult(value, path);
}
