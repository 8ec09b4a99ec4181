// One convention for the options every command shares: --target, --endpoint (old spelling
// --endpoint-id), --api-key-env, --rest-url/--graphql-url and --config carry the help text of
// src/cli/target-options.ts in every command that declares them, a command adding at most a
// note after it; the commands that name a target declare the full set.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/commands/index.js';
import type { CommandEntry, CommandModule } from '../../../src/cli/command.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { readsConfig, type OptionSpec } from '../../../src/cli/options.js';
import { SHARED_HELP } from '../../../src/cli/target-options.js';
import { EXIT } from '../../../src/exit-codes.js';

/** Every command with its declaration. */
const DECLARED: readonly (CommandEntry & CommandModule)[] = await Promise.all(COMMANDS.map(async (e) => ({ ...e, ...(await e.load()) })));

/** The flags a command declares, by name. */
function declaredOptions(cmd: CommandModule): Map<string, OptionSpec> {
  return new Map(Object.values(cmd.options).flatMap((o) => (o.flag === undefined || o.positional === true ? [] : [[o.flag, o] as const])));
}

const nameOf = (cmd: CommandEntry): string => cmd.command.split(' ')[0] ?? '';

/** The shared texts each shared option may carry. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  target: [SHARED_HELP.target, SHARED_HELP.urlTarget],
  endpoint: [SHARED_HELP.endpoint, SHARED_HELP.servedEndpoints],
  'api-key-env': [SHARED_HELP.apiKeyEnv],
  'rest-url': [SHARED_HELP.restUrl],
  'graphql-url': [SHARED_HELP.graphqlUrl],
};

/** Commands that talk to a service they are given, and what they must declare. */
const TARGET_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  check: ['target', 'endpoint', 'api-key-env', 'rest-url', 'graphql-url'],
  fuzz: ['target', 'endpoint', 'api-key-env', 'rest-url', 'graphql-url'],
  load: ['target', 'endpoint', 'api-key-env'],
  worker: ['target', 'endpoint', 'api-key-env'],
  // The pods read the key from a Kubernetes Secret (--secret), never from this machine's environment.
  kube: ['target', 'endpoint'],
};

const normalize = (text: string): string => text.replace(/\s+/g, ' ');

async function help(name: string): Promise<string> {
  let out = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), isTty: false, env: {}, signal: new AbortController().signal };
  expect(await main([name, '--help'], io)).toBe(EXIT.OK);
  return normalize(out);
}

describe('shared options', () => {
  it('every shared option a command declares carries the one help text (plus at most a note)', () => {
    let seen = 0;
    for (const cmd of DECLARED) {
      for (const [option, o] of declaredOptions(cmd)) {
        const allowed = ALLOWED[option];
        if (allowed === undefined) continue;
        seen++;
        const text = o.help ?? '';
        const base = allowed.find((a) => text === a || text.startsWith(`${a}; `));
        expect(base, `${nameOf(cmd)} --${option}: "${text}"`).toBeDefined();
        if (option === 'endpoint' && base === SHARED_HELP.endpoint) expect(o.alias, `${nameOf(cmd)} --endpoint`).toBe('endpoint-id');
      }
    }
    expect(seen).toBeGreaterThanOrEqual(Object.values(TARGET_COMMANDS).flat().length);
  });

  it('the commands that name a target declare the whole set', () => {
    const names = DECLARED.map(nameOf);
    for (const [name, required] of Object.entries(TARGET_COMMANDS)) {
      expect(names).toContain(name);
      const declared = declaredOptions(DECLARED.find((c) => nameOf(c) === name)!);
      for (const option of required) expect([...declared.keys()], `${name} --${option}`).toContain(option);
    }
  });

  it('the commands that run something and write reports declare the one --out', () => {
    for (const name of ['check', 'load', 'fuzz', 'start']) {
      const out = declaredOptions(DECLARED.find((c) => nameOf(c) === name)!).get('out');
      expect(out?.help, name).toBe(SHARED_HELP.out);
    }
  });

  it('--config is in the help of exactly the commands that read the config file, with the one text', async () => {
    for (const cmd of DECLARED) {
      const text = await help(nameOf(cmd));
      if (readsConfig(cmd.options)) expect(text, nameOf(cmd)).toContain(`--config ${normalize(SHARED_HELP.config)}`);
      else expect(text, nameOf(cmd)).not.toContain('--config');
    }
  });

  it('the help of check shows the target grammar and the key variable default in full', async () => {
    const text = await help('check');
    for (const t of [SHARED_HELP.target, SHARED_HELP.endpoint, SHARED_HELP.apiKeyEnv]) expect(text).toContain(normalize(t));
    expect(text).toContain('default QBENCH_API_KEY, or RUNPOD_API_KEY when QBENCH_API_KEY is unset');
  });
});
