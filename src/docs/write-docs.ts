// `npm run docs`: rewrite the generated reference pages (src/docs/reference.ts) and the docs'
// TypeScript examples as files the type check compiles (src/docs/code-blocks.ts), and link the
// glossary's terms at their first use on each hand-written page (src/docs/glossary-links.ts).
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOC_BLOCKS_DIR, docPages, renderDocBlocks } from './code-blocks.js';
import { linkedPages, linkFirstUses } from './glossary-links.js';
import { REFERENCE_FILES } from './reference.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const [file, render] of Object.entries(REFERENCE_FILES)) {
  const target = path.join(root, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, await render());
  process.stdout.write(`wrote ${file}\n`);
}
const blocks = renderDocBlocks(root);
await mkdir(path.join(root, DOC_BLOCKS_DIR), { recursive: true });
for (const stale of await readdir(path.join(root, DOC_BLOCKS_DIR))) {
  if (!blocks.has(`${DOC_BLOCKS_DIR}/${stale}`)) await rm(path.join(root, DOC_BLOCKS_DIR, stale));
}
for (const [file, text] of blocks) await writeFile(path.join(root, file), text);
process.stdout.write(`wrote ${blocks.size} example files into ${DOC_BLOCKS_DIR}/\n`);
for (const page of linkedPages(docPages(root))) {
  const text = await readFile(path.join(root, page), 'utf8');
  const linked = linkFirstUses(text, page);
  if (linked !== text) {
    await writeFile(path.join(root, page), linked);
    process.stdout.write(`linked glossary terms at first use in ${page}\n`);
  }
}
