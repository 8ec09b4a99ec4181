// Reading a twin for the discrete-event mode: the emulator config `qbench calibrate` writes (or
// any emulator config). A twin file carries no API key (the emulator reads one when it serves);
// the simulator serves nothing, so a placeholder stands in for it before the one validation.
import { readFile } from 'node:fs/promises';
import { configError, isQbenchError, usageError } from '../errors.js';
import { parseEmulatorConfig, type EmulatorConfig } from '../emulator/config.js';

/** Stands in for the key a twin file leaves out: the simulator answers no request. */
const NO_KEY = 'qbench-simulator-serves-no-requests';

/** Validate a parsed twin (an emulator config, with or without its key). */
export function parseTwin(value: unknown, source = 'twin'): EmulatorConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw configError(`${source}: a twin is an emulator config (a JSON object)`, { source });
  const o = value as Record<string, unknown>;
  try {
    return parseEmulatorConfig(o['apiKey'] === undefined ? { ...o, apiKey: NO_KEY } : o);
  } catch (e) {
    if (isQbenchError(e, 'QB_ERR_CONFIG')) throw configError(`${source}: ${e.message}`, { source });
    throw e;
  }
}

/** Read and validate a twin file (JSON). */
export async function loadTwin(file: string): Promise<EmulatorConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw usageError(`twin ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? String(e))})`, { file });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw configError(`twin ${file}: not JSON (${e instanceof Error ? e.message : String(e)})`, { file });
  }
  return parseTwin(value, `twin ${file}`);
}
