// What a command reads of the config file: its sections by dotted key (`fuzz.runs`,
// `emulator.workers.min`, `reportDir`) and `target.*`, the named target that `--target <name>`
// picks. The CLI's option declarations (src/cli/options.ts) name these keys; flags win over them.
import type { ConfigTarget, QbenchConfig } from './schema.js';

export type ConfigView = Omit<QbenchConfig, 'targets'> & { readonly target?: ConfigTarget | undefined };

type Leaf = readonly unknown[] | string | number | boolean;
type KeysOf<T> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends Leaf ? K : K | `${K}.${KeysOf<NonNullable<T[K]>>}`;
}[keyof T & string];

/** A setting of the config file as a command sees it, e.g. 'fuzz.maxDuration' or 'target.endpoint'. */
export type ConfigKey = KeysOf<ConfigView>;

/** The file's settings with the target named `targetName` (if the file defines one) as `target`. */
export function configView(config: QbenchConfig, targetName: string | undefined): ConfigView {
  const { targets, ...rest } = config;
  return { ...rest, target: targetName === undefined ? undefined : targets[targetName] };
}

export function namesConfigTarget(config: QbenchConfig, name: unknown): name is string {
  return typeof name === 'string' && Object.hasOwn(config.targets, name);
}

/** The value at `key`, undefined when the file does not set it. */
export function configValue(view: ConfigView, key: ConfigKey): unknown {
  let cur: unknown = view;
  for (const part of key.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
