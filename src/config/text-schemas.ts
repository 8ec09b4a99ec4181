// The small text schemas the config file and the CLI flags share: a key's variable name, an
// http(s) URL. Apart from the config schema (which holds the emulator's deployments) so that a
// command's option declarations read them without it.
import { z } from 'zod';

/** The name of an environment variable (the config and the flags name the key's variable, never the key). */
export const EnvVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must be an environment variable name (letters, digits, _)' });
export const HttpUrlText = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
