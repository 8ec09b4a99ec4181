// What an LLM load run asks: prompt and output lengths drawn from distributions (fixed, uniform,
// bounded normal, or sampled from a file of numbers), or prompts from a user's dataset (JSONL of
// prompts or chat messages, ShareGPT-shaped JSON), every draw from one seeded stream.
//
// No tokenizer is downloaded. A synthetic prompt of N tokens is N words of three lowercase
// letters, each with its leading space (" cat"): a common three-letter English word is one token
// in the GPT and Llama BPE vocabularies, and four characters, which is also the chars/4 rule the
// emulator counts by. A dataset prompt's length is estimated as ceil(characters / 4), which on
// English prose is within about 25% of a BPE count; the server's `usage.prompt_tokens`, when it
// reports it, is the exact figure and the report shows it.
import { readFile } from 'node:fs/promises';
import { usageError, configError } from '../../errors.js';
import { normalCdf, normalQuantile } from '../../deployment/distributions.js';
import { seededRng, streamSeed, type Rng } from '../../deployment/random.js';

export const TOKEN_APPROXIMATION =
  'no tokenizer: a synthetic prompt of N tokens is N common three-letter words (" cat": one token in GPT and Llama BPE vocabularies, and 4 characters, the chars/4 rule), a dataset prompt is estimated at ceil(chars/4) tokens (within about 25% of a BPE count on English prose); usage.prompt_tokens, when the server reports it, is the exact count';

/** A length distribution in tokens. */
export type LengthDist =
  | { readonly kind: 'fixed'; readonly tokens: number }
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number }
  | { readonly kind: 'normal'; readonly mean: number; readonly sd: number; readonly min: number; readonly max: number }
  | { readonly kind: 'file'; readonly file: string; readonly values: readonly number[] };

export const LENGTH_FORMS = 'N (fixed), uniform:MIN-MAX, normal:MEAN,SD[,MIN,MAX] (bounded), or file:PATH (numbers, one a line or a JSON array, sampled)';
export const MAX_LENGTH_TOKENS = 1_000_000;

const int = (s: string | undefined): number | undefined => (s !== undefined && /^\d+$/.test(s.trim()) ? Number(s.trim()) : undefined);

function checkLength(flag: string, text: string, n: number, min = 1): number {
  if (!Number.isFinite(n) || n < min || n > MAX_LENGTH_TOKENS) throw usageError(`${flag} "${text}": lengths must be from ${min} to ${MAX_LENGTH_TOKENS} tokens (${LENGTH_FORMS})`, { flag });
  return n;
}

/** Parse a length distribution (a `file:` one is read by `loadLengthDist`). `flag` names the option in errors. */
export function parseLengthDist(flag: string, text: string): LengthDist {
  const t = text.trim();
  const fixed = int(t);
  if (fixed !== undefined) return { kind: 'fixed', tokens: checkLength(flag, text, fixed) };
  const colon = t.indexOf(':');
  const kind = colon === -1 ? '' : t.slice(0, colon).toLowerCase();
  const rest = colon === -1 ? '' : t.slice(colon + 1);
  if (kind === 'uniform') {
    const m = /^\s*(\d+)\s*(?:-|\.\.)\s*(\d+)\s*$/.exec(rest);
    if (m) {
      const min = checkLength(flag, text, Number(m[1]));
      const max = checkLength(flag, text, Number(m[2]));
      if (max < min) throw usageError(`${flag} "${text}": MAX must be at least MIN`, { flag });
      return { kind: 'uniform', min, max };
    }
  } else if (kind === 'normal') {
    const parts = rest.split(',').map((p) => p.trim());
    const nums = parts.map(Number);
    if ((parts.length === 2 || parts.length === 4) && nums.every((n) => Number.isFinite(n))) {
      const [mean = 0, sd = 0] = nums;
      if (!(mean >= 1) || !(sd > 0)) throw usageError(`${flag} "${text}": MEAN must be at least 1 and SD above 0`, { flag });
      const min = checkLength(flag, text, Math.round(nums[2] ?? 1));
      const max = checkLength(flag, text, Math.round(nums[3] ?? Math.min(MAX_LENGTH_TOKENS, Math.ceil(mean + 4 * sd))));
      if (max < min) throw usageError(`${flag} "${text}": MAX must be at least MIN`, { flag });
      return { kind: 'normal', mean, sd, min, max };
    }
  } else if (kind === 'file' && rest.trim().length > 0) {
    return { kind: 'file', file: rest.trim(), values: [] };
  }
  throw usageError(`${flag} "${text}" is not a length distribution: ${LENGTH_FORMS}`, { flag });
}

/** Read the numbers of a `file:` distribution; other kinds come back as they are. */
export async function loadLengthDist(flag: string, d: LengthDist): Promise<LengthDist> {
  if (d.kind !== 'file') return d;
  let text: string;
  try {
    text = await readFile(d.file, 'utf8');
  } catch (e) {
    throw configError(`${flag}: cannot read ${d.file}: ${e instanceof Error ? e.message : String(e)}`, { flag });
  }
  const trimmed = text.trim();
  let raw: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      raw = JSON.parse(trimmed) as unknown[];
    } catch (e) {
      throw configError(`${flag}: ${d.file} is not a JSON array: ${e instanceof Error ? e.message : String(e)}`, { flag });
    }
  } else raw = trimmed.split(/\r?\n/).filter((l) => l.trim().length > 0).map((l) => Number(l.trim()));
  const values = raw.map((v) => (typeof v === 'number' ? Math.round(v) : NaN));
  const bad = values.findIndex((v) => !(v >= 1 && v <= MAX_LENGTH_TOKENS));
  if (values.length === 0 || bad !== -1) {
    throw configError(`${flag}: ${d.file} must hold token counts from 1 to ${MAX_LENGTH_TOKENS}, one a line or a JSON array${bad !== -1 ? ` (entry ${bad + 1} is ${String(raw[bad])})` : ' (it is empty)'}`, { flag });
  }
  return { ...d, values };
}

/** One draw from `d` (one number of `rng` per draw, so a seed fixes the sequence). */
export function drawLength(d: LengthDist, rng: Rng): number {
  const u = rng.next();
  switch (d.kind) {
    case 'fixed':
      return d.tokens;
    case 'uniform':
      return d.min + Math.floor(u * (d.max - d.min + 1));
    case 'normal': {
      // Inverse CDF over [Φ(a), Φ(b)]: the normal truncated to its bounds, in one draw.
      const lo = normalCdf((d.min - 0.5 - d.mean) / d.sd);
      const hi = normalCdf((d.max + 0.5 - d.mean) / d.sd);
      const x = d.mean + d.sd * normalQuantile(lo + u * (hi - lo));
      return Math.min(d.max, Math.max(d.min, Math.round(x)));
    }
    case 'file':
      return d.values[Math.min(d.values.length - 1, Math.floor(u * d.values.length))] as number;
  }
}

export function describeLengthDist(d: LengthDist): string {
  switch (d.kind) {
    case 'fixed':
      return `${d.tokens} tokens`;
    case 'uniform':
      return `uniform ${d.min}-${d.max} tokens`;
    case 'normal':
      return `normal mean ${d.mean}, sd ${d.sd}, bounded ${d.min}-${d.max} tokens`;
    case 'file':
      return `sampled from ${d.file} (${d.values.length} values)`;
  }
}

// ---------------------------------------------------------------- prompts

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}

/** What one request asks. */
export interface LlmRequestSpec {
  readonly messages: readonly ChatMessage[];
  /** The same request as one completions prompt. */
  readonly prompt: string;
  /** Estimated prompt tokens (see TOKEN_APPROXIMATION). */
  readonly promptTokens: number;
  readonly maxTokens: number;
}

/** The three-letter words of synthetic prompts (syntheticPrompt). */
export const SYNTHETIC_WORDS: readonly string[] = (
  'the cat sat big dog ran red box hat sun sea sky day way run top cup pen map car bus art act age air ' +
  'arm bag bed bit boy can cut die ear eat egg end eye far few fit fly fun gas god gun guy hit hot ice job ' +
  'key kid law leg lie lot low man mix net new now odd oil old one own pay per put raw row sad say set she ' +
  'sit six son tax tea ten tie tip toe try two use war wet win yes yet'
).split(' ');

/** `n` words of three letters drawn from `rng`, each with its leading space: about `n` tokens (TOKEN_APPROXIMATION). */
export function syntheticPrompt(n: number, rng: Rng): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(SYNTHETIC_WORDS[Math.floor(rng.next() * SYNTHETIC_WORDS.length)] as string);
  return parts.join(' ');
}

/** Estimated tokens of dataset text: ceil(chars / 4), at least 1. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** One dataset entry: its conversation, and the output length it carries (when it does). */
export interface DatasetEntry {
  readonly messages: readonly ChatMessage[];
  readonly outputTokens: number | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function messagesOf(v: unknown): ChatMessage[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: ChatMessage[] = [];
  for (const m of v) {
    if (!isRecord(m) || typeof m['content'] !== 'string' || typeof m['role'] !== 'string') return undefined;
    out.push({ role: m['role'], content: m['content'] });
  }
  return out.length > 0 ? out : undefined;
}

const OUTPUT_FIELDS = ['output_tokens', 'max_tokens', 'output_len'] as const;

function entryOfJsonl(v: unknown): DatasetEntry | undefined {
  if (typeof v === 'string') return v.length > 0 ? { messages: [{ role: 'user', content: v }], outputTokens: undefined } : undefined;
  if (!isRecord(v)) return undefined;
  const out = OUTPUT_FIELDS.map((f) => v[f]).find((x): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 1);
  const messages = messagesOf(v['messages']);
  if (messages) return { messages, outputTokens: out };
  const prompt = typeof v['prompt'] === 'string' ? v['prompt'] : typeof v['text'] === 'string' ? v['text'] : undefined;
  if (prompt !== undefined && prompt.length > 0) return { messages: [{ role: 'user', content: prompt }], outputTokens: out };
  if (Array.isArray(v['conversations'])) return entryOfShareGpt(v);
  return undefined;
}

const SHAREGPT_ROLES: Readonly<Record<string, string>> = { human: 'user', user: 'user', gpt: 'assistant', assistant: 'assistant', system: 'system' };

/** A ShareGPT conversation: its turns up to the first user turn are the prompt; the reply after it sets the output length. */
function entryOfShareGpt(v: Record<string, unknown>): DatasetEntry | undefined {
  const turns = v['conversations'];
  if (!Array.isArray(turns)) return undefined;
  const messages: ChatMessage[] = [];
  for (let i = 0; i < turns.length; i++) {
    const t: unknown = turns[i];
    if (!isRecord(t) || typeof t['value'] !== 'string') return undefined;
    const role = SHAREGPT_ROLES[String(t['from'])];
    if (role === undefined) return undefined;
    messages.push({ role, content: t['value'] });
    if (role === 'user') {
      const next: unknown = turns[i + 1];
      const reply = isRecord(next) && typeof next['value'] === 'string' ? next['value'] : undefined;
      return { messages, outputTokens: reply === undefined || reply.length === 0 ? undefined : estimateTokens(reply) };
    }
  }
  return undefined;
}

/**
 * Read a dataset: JSONL (one prompt string, `{prompt}`, `{text}` or `{messages: [...]}` a line,
 * optional output_tokens / max_tokens / output_len) or a ShareGPT JSON array of
 * `{conversations: [{from, value}, ...]}`. Entries of another shape are skipped and counted.
 */
export async function loadDataset(file: string): Promise<{ entries: DatasetEntry[]; skipped: number }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw configError(`--dataset: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`, { flag: 'dataset' });
  }
  const trimmed = text.trimStart();
  let items: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      items = JSON.parse(trimmed) as unknown[];
    } catch (e) {
      throw configError(`--dataset: ${file} starts with "[" but is not a JSON array: ${e instanceof Error ? e.message : String(e)}`, { flag: 'dataset' });
    }
  } else {
    items = [];
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] as string).trim();
      if (line.length === 0) continue;
      try {
        items.push(JSON.parse(line) as unknown);
      } catch {
        throw configError(`--dataset: ${file} line ${i + 1} is not JSON (a JSONL dataset holds one JSON value a line)`, { flag: 'dataset' });
      }
    }
  }
  const entries: DatasetEntry[] = [];
  let skipped = 0;
  for (const item of items) {
    const e = entryOfJsonl(item);
    if (e) entries.push(e);
    else skipped += 1;
  }
  if (entries.length === 0) throw configError(`--dataset: ${file} holds no usable entry (JSONL of prompts or {messages}, or ShareGPT {conversations}); ${skipped} skipped`, { flag: 'dataset' });
  return { entries, skipped };
}

export interface WorkloadOptions {
  readonly seed: number;
  readonly promptTokens: LengthDist;
  /** Undefined: a dataset entry's own output length, else 128 tokens. */
  readonly outputTokens: LengthDist | undefined;
  readonly dataset?: { readonly file: string; readonly entries: readonly DatasetEntry[] } | undefined;
}

export const DEFAULT_OUTPUT_TOKENS = 128;

function promptOf(messages: readonly ChatMessage[]): string {
  return messages.length === 1 ? (messages[0] as ChatMessage).content : messages.map((m) => `${m.role}: ${m.content}`).join('\n');
}

/**
 * The requests of a run, drawn in order from the seed: the i-th request of every run (path, load
 * level) with the same seed is the same request, so paths and levels are compared on one workload.
 * A dataset is walked in a seeded permutation (each entry once before any repeats).
 */
export class Workload {
  private readonly lengths: Rng;
  private readonly words: Rng;
  private readonly order: number[] = [];
  private next = 0;

  constructor(private readonly o: WorkloadOptions) {
    this.lengths = seededRng(streamSeed(o.seed, 'llm-lengths'));
    this.words = seededRng(streamSeed(o.seed, 'llm-words'));
    const n = o.dataset?.entries.length ?? 0;
    if (n > 0) {
      const rng = seededRng(streamSeed(o.seed, 'llm-dataset'));
      for (let i = 0; i < n; i++) this.order.push(i);
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rng.next() * (i + 1));
        [this.order[i], this.order[j]] = [this.order[j] as number, this.order[i] as number];
      }
    }
  }

  /** The next request. */
  take(): LlmRequestSpec {
    const i = this.next++;
    const ds = this.o.dataset;
    const outputDraw = this.o.outputTokens === undefined ? undefined : drawLength(this.o.outputTokens, this.lengths);
    if (ds !== undefined && ds.entries.length > 0) {
      const e = ds.entries[this.order[i % this.order.length] as number] as DatasetEntry;
      const prompt = promptOf(e.messages);
      return { messages: e.messages, prompt, promptTokens: e.messages.reduce((a, m) => a + estimateTokens(m.content), 0), maxTokens: outputDraw ?? e.outputTokens ?? DEFAULT_OUTPUT_TOKENS };
    }
    const promptTokens = drawLength(this.o.promptTokens, this.lengths);
    const text = syntheticPrompt(promptTokens, this.words);
    return { messages: [{ role: 'user', content: text }], prompt: text, promptTokens, maxTokens: outputDraw ?? DEFAULT_OUTPUT_TOKENS };
  }
}
