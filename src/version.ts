// The qbench version, read from package.json at run time so there is one source.
import { readFileSync } from 'node:fs';

function findVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'qbench' && pkg.version) return pkg.version;
    } catch {
      // try the next location (source tree vs dist/)
    }
  }
  return '0.0.0';
}

export const VERSION: string = findVersion();
