// The emulator settings a load-running command takes for `--target emulator`: --emulator-config
// (a JSON file), with --time-scale and --scale-rate-windows over it. Read once here for `load` and `llm`.
import { readFile } from 'node:fs/promises';
import { configError, usageError } from '../errors.js';

export interface EmulatorConfigFlags {
  readonly target: string;
  readonly emulatorConfig?: string | undefined;
  readonly timeScale?: number | undefined;
  readonly scaleRateWindows?: boolean | undefined;
}

/** The emulator config the flags give; a bad file is a configuration error, emulator flags with a URL target a usage error. */
export async function emulatorConfigOf(f: EmulatorConfigFlags, flagsNamed: string): Promise<Record<string, unknown>> {
  let config: Record<string, unknown> = {};
  if (f.emulatorConfig !== undefined) {
    try {
      config = JSON.parse(await readFile(f.emulatorConfig, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw configError(`--emulator-config: cannot read ${f.emulatorConfig}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (f.timeScale !== undefined) config['timeScale'] = f.timeScale;
  if (f.scaleRateWindows !== undefined) config['scaleRateWindows'] = f.scaleRateWindows;
  if (f.target !== 'emulator' && Object.keys(config).length > 0) throw usageError(`${flagsNamed} apply only to --target emulator`);
  return config;
}
