// `npm run docs`: rewrite the generated reference pages under docs/reference/ (src/docs/reference.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REFERENCE_FILES } from './reference.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const [file, render] of Object.entries(REFERENCE_FILES)) {
  const target = path.join(root, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, await render());
  process.stdout.write(`wrote ${file}\n`);
}
