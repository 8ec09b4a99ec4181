// `npm run schema`: regenerate reports/schema/*.schema.json from the zod models.
import { fileURLToPath } from 'node:url';
import { writeSchemas } from './schema.js';

const dir = fileURLToPath(new URL('../../reports/schema/', import.meta.url));
for (const file of await writeSchemas(dir)) process.stdout.write(`wrote ${file}\n`);
