// The directory a run's reports go to, chosen when the run starts: apart from the renderers
// (write-all.ts) so that a command picks it, and journals into it, before loading them.
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';

/** A directory-safe timestamp: 2026-11-22T10-00-00Z. */
export function timestampDirName(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** `base`, or base-2, base-3... : the first that does not exist. */
export async function freshDir(base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await lstat(candidate).catch(() => undefined))) return candidate;
  }
}

/**
 * The directory a run's reports will go to, chosen when the run starts (its journal is written
 * there as it runs): `outDir`, or a fresh reports/<timestamp>/ that no other run uses.
 */
export async function runReportDir(startedAt: Date, outDir?: string, options: { readonly reportsRoot?: string } = {}): Promise<string> {
  if (outDir !== undefined) return path.resolve(outDir);
  const dir = await freshDir(path.join(path.resolve(options.reportsRoot ?? 'reports'), timestampDirName(startedAt.toISOString())));
  await mkdir(dir, { recursive: true });
  return dir;
}

