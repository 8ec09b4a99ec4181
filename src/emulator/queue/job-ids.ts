// Job ids (§2.2): "Synchronous jobs carry the prefix sync- followed by a UUID; asynchronous jobs
// carry a UUID, possibly with a suffix" (the service's is -e1). A random version-4 UUID is
// written as ASCII straight into a buffer with its prefix or suffix and read back as one flat
// string: none of the dozen intermediate strings of randomUUID() plus a concatenation, and a
// key the job map hashes without flattening first. One id per /run, so this is on its hot path.
import { randomFillSync } from 'node:crypto';

const UUID_BYTES = 16;
/** UUIDs' worth of random bytes drawn at once, as node's own randomUUID() buffers them. */
const BATCH = 256;
const random = Buffer.alloc(UUID_BYTES * BATCH);
let nextInBatch = BATCH;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const HYPHEN = 0x2d;
/** Longest id: "sync-" + 36 + a suffix; prefixes and suffixes are short ASCII constants. */
const text = Buffer.alloc(64);

/** `prefix` + a random RFC 9562 version-4 UUID (lower-case hex) + `suffix`. */
export function randomJobId(prefix: '' | 'sync-', suffix: '' | '-e1'): string {
  if (nextInBatch === BATCH) {
    randomFillSync(random);
    nextInBatch = 0;
  }
  const from = UUID_BYTES * nextInBatch++;
  let at = prefix === '' ? 0 : text.write(prefix, 0, 'latin1');
  for (let i = 0; i < UUID_BYTES; i++) {
    let b = random[from + i] as number;
    if (i === 6) b = (b & 0x0f) | 0x40; // version 4
    else if (i === 8) b = (b & 0x3f) | 0x80; // variant 10xx
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = HYPHEN;
    text[at++] = HEX_DIGITS[b >> 4] as number;
    text[at++] = HEX_DIGITS[b & 0x0f] as number;
  }
  if (suffix !== '') at += text.write(suffix, at, 'latin1');
  return text.toString('latin1', 0, at);
}
